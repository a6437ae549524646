#include "engine/services/worker_pruning.h"

#include <spdlog/spdlog.h>

namespace redrive::engine {

ServiceRun WorkerPruning::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(long long n, tx.DeleteOfflineWorkers(now - keep_, batch_));
    run.changed = n;
    run.more = n >= batch_;
    return Status::Ok();
  });
  if (!st.ok()) spdlog::warn("worker pruning: {}", st.ToString());
  return run;
}

}  // namespace redrive::engine
