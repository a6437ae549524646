// JobCountDeltas: a write transaction's changes to job_counts (the counters
// CountJobs reads), collected as its jobs are written and written out once,
// summed per (queue, status), just before its COMMIT. Both stores' write
// transactions hold one:
//   - every write of a job's row adds its delta (an insert +1, a change of
//     status or queue -1 and +1, a delete -1);
//   - Savepoint() marks, RollbackToSavepoint() drops the deltas after the
//     mark, as the database drops the rows (one level, as store.h's
//     savepoints);
//   - the commit writes Sums() and clears them; CountJobs inside the
//     transaction adds them to what it read (a write sees its own changes).
// One statement per distinct (queue, status) per transaction — a batch of
// 100 claims moves two counters once — instead of one per job.
//
// Thread-safety: none; owned by one transaction.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/job.h"
#include "core/queue.h"

namespace redrive::store {

class JobCountDeltas {
 public:
  void Add(const std::string& queue_name, JobStatus status, long long delta) {
    deltas_.push_back(Delta{queue_name, status, delta});
  }
  // The -1/+1 of a job written from `before` to `after`; nothing unless its
  // status or queue changed.
  void AddChange(const Job& before, const Job& after) {
    if (before.status == after.status && before.queue_name == after.queue_name) return;
    Add(before.queue_name, before.status, -1);
    Add(after.queue_name, after.status, 1);
  }
  // Appends the opposite of `queue_name`'s sums, so they add up to zero:
  // for a queue whose jobs and counters were just deleted outright.
  void CancelQueue(const std::string& queue_name) {
    for (const auto& [key, delta] : Sums()) {
      if (key.first == queue_name) Add(queue_name, key.second, -delta);
    }
  }
  void Mark() { mark_ = deltas_.size(); }
  void RollbackToMark() { deltas_.resize(mark_); }

  // The non-zero sums per (queue, status), in key order.
  std::map<std::pair<std::string, JobStatus>, long long> Sums() const {
    std::map<std::pair<std::string, JobStatus>, long long> sums;
    for (const Delta& d : deltas_) sums[{d.queue_name, d.status}] += d.delta;
    std::erase_if(sums, [](const auto& entry) { return entry.second == 0; });
    return sums;
  }
  void Clear() {
    deltas_.clear();
    mark_ = 0;
  }
  // `counts` (of one queue, or all when unset) with the deltas added.
  StatusCounts AddedTo(StatusCounts counts, const std::optional<std::string>& queue_name) const {
    for (const Delta& d : deltas_) {
      if (!queue_name || d.queue_name == *queue_name) counts.of(d.status) += d.delta;
    }
    return counts;
  }

 private:
  struct Delta {
    std::string queue_name;
    JobStatus status;
    long long delta;
  };
  std::vector<Delta> deltas_;
  size_t mark_ = 0;
};

}  // namespace redrive::store
