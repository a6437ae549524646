#include "engine/services/audit_retention.h"

#include <spdlog/spdlog.h>

namespace redrive::engine {

ServiceRun AuditRetention::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(long long entries, tx.DeleteAuditBefore(now - keep_, batch_));
    REDRIVE_ASSIGN_OR_RETURN(long long keys, tx.DeleteExpiredIdempotencyKeys(now, batch_));
    REDRIVE_ASSIGN_OR_RETURN(long long tokens,
                             tx.DeleteOldRefreshTokens(now - kKeepEndedRefreshTokens, batch_));
    REDRIVE_ASSIGN_OR_RETURN(long long operations,
                             tx.DeleteFinishedOperationsBefore(now - keep_operations_, batch_));
    run.changed = entries + keys + tokens + operations;
    run.more = entries >= batch_ || keys >= batch_ || tokens >= batch_ || operations >= batch_;
    return Status::Ok();
  });
  if (!st.ok()) spdlog::warn("audit retention: {}", st.ToString());
  return run;
}

}  // namespace redrive::engine
