#include "job_ledger.h"

namespace redrive::bench {

JobLedger::JobLedger(int64_t jobs)
    : size_(jobs),
      attempts_(new std::atomic<int32_t>[static_cast<size_t>(jobs)]),
      successes_(new std::atomic<int32_t>[static_cast<size_t>(jobs)]) {
  for (int64_t i = 0; i < jobs; ++i) {
    attempts_[i].store(0, std::memory_order_relaxed);
    successes_[i].store(0, std::memory_order_relaxed);
  }
}

int JobLedger::RecordAttempt(int64_t index) {
  if (!Has(index)) {
    foreign_.fetch_add(1);
    return 0;
  }
  return attempts_[index].fetch_add(1) + 1;
}

int JobLedger::RecordSuccess(int64_t index) { return successes_[index].fetch_add(1) + 1; }

LedgerTally JobLedger::Tally() const {
  LedgerTally t;
  t.foreign = foreign_.load();
  for (int64_t i = 0; i < size_; ++i) {
    const int32_t s = successes_[i].load();
    t.invocations += attempts_[i].load();
    if (s == 0) {
      ++t.lost;
    } else if (s == 1) {
      ++t.completed_once;
    } else {
      t.duplicated += s - 1;
    }
  }
  return t;
}

}  // namespace redrive::bench
