// Per-job counts of handler runs, kept by the bench itself so that it never
// trusts the server under test: the exactly-once check (lost = no successful
// run, duplicated = more than one) and the attempts-per-job check of the
// dead-letter phase both read from here. Thread-safe (atomics, no locks),
// because every consumer thread records into one ledger.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace redrive::bench {

struct LedgerTally {
  int64_t completed_once = 0;  // jobs with exactly one successful run
  int64_t lost = 0;            // jobs with none
  int64_t duplicated = 0;      // extra successful runs, summed over jobs
  int64_t invocations = 0;     // handler runs, successful or not
  int64_t foreign = 0;         // deliveries whose index is not one of ours
};

class JobLedger {
 public:
  explicit JobLedger(int64_t jobs);

  int64_t size() const { return size_; }
  bool Has(int64_t index) const { return index >= 0 && index < size_; }

  // Records a handler run of job `index` and returns its attempt number (1 = first).
  // An index outside [0, size) is counted as foreign and returns 0.
  int RecordAttempt(int64_t index);
  // Records a successful run and returns how many job `index` has had so far.
  // REQUIRES: Has(index).
  int RecordSuccess(int64_t index);

  int attempts(int64_t index) const { return attempts_[index].load(); }
  LedgerTally Tally() const;

 private:
  int64_t size_;
  std::unique_ptr<std::atomic<int32_t>[]> attempts_;
  std::unique_ptr<std::atomic<int32_t>[]> successes_;
  std::atomic<int64_t> foreign_{0};
};

}  // namespace redrive::bench
