#include "engine/services/delivery_retention.h"

#include <spdlog/spdlog.h>

namespace redrive::engine {

ServiceRun DeliveryRetention::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(long long n, tx.DeleteFinishedDeliveries(now - keep_, batch_));
    run.changed = n;
    run.more = n >= batch_;
    return Status::Ok();
  });
  if (!st.ok()) spdlog::warn("webhook delivery retention: {}", st.ToString());
  return run;
}

}  // namespace redrive::engine
