#include "engine/services/retention.h"

#include <spdlog/spdlog.h>

namespace redrive::engine {

ServiceRun Retention::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  std::vector<QueueConfig> queues;
  if (auto tx = store_.BeginRead(); tx.ok()) {
    if (auto list = (*tx)->ListQueues(); list.ok()) queues = std::move(*list);
  }
  for (const QueueConfig& q : queues) {
    const std::pair<JobStatus, std::optional<std::chrono::seconds>> rules[] = {
        {JobStatus::kCompleted, q.retention.completed},
        {JobStatus::kDeadletter, q.retention.deadletter},
        {JobStatus::kCancelled, q.retention.cancelled}};
    // Not a structured binding: the lambda below captures these, which
    // clang before 16 does not allow for bindings.
    for (const auto& rule : rules) {
      const JobStatus status = rule.first;
      const std::optional<std::chrono::seconds>& keep = rule.second;
      if (!keep) continue;
      // The run may be re-run (an aborted transaction): it sets, never
      // adds; only a committed run counts.
      bool more = false;
      long long deleted = 0;
      Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
        REDRIVE_ASSIGN_OR_RETURN(
            auto ids, tx.SelectRetentionExpired(q.queue_name, status, now - *keep, batch_));
        more = static_cast<int>(ids.size()) >= batch_;
        REDRIVE_ASSIGN_OR_RETURN(deleted, tx.DeleteJobs(ids));
        return Status::Ok();
      });
      if (st.ok()) {
        run.more = run.more || more;
        run.changed += deleted;
      } else {
        spdlog::warn("retention of {}: {}", q.queue_name, st.ToString());
      }
    }
  }
  return run;
}

}  // namespace redrive::engine
