#include "engine/services/schedule_run_retention.h"

#include <spdlog/spdlog.h>

namespace redrive::engine {

ServiceRun ScheduleRunRetention::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  // The run may be re-run (an aborted transaction): it sets, never adds.
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(long long deleted,
                             tx.DeleteOldScheduleRuns(keep_, now - max_age_, batch_));
    run.changed = deleted;
    run.more = deleted >= batch_;
    return Status::Ok();
  });
  if (!st.ok()) {
    spdlog::warn("schedule run retention: {}", st.ToString());
    run.changed = 0;
    run.more = false;
  }
  return run;
}

}  // namespace redrive::engine
