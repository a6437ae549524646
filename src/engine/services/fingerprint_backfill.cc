#include "engine/services/fingerprint_backfill.h"

#include <spdlog/spdlog.h>

#include "core/error_fingerprint.h"

namespace redrive::engine {

ServiceRun ErrorFingerprintBackfill::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(std::vector<store::FingerprintBackfill> rows,
                             tx.SelectUnfingerprinted(batch_));
    for (store::FingerprintBackfill& row : rows) row.fingerprint = ErrorFingerprint(row.last_error);
    REDRIVE_ASSIGN_OR_RETURN(run.changed, tx.SetErrorFingerprints(rows));
    run.more = static_cast<int>(rows.size()) >= batch_;
    return Status::Ok();
  });
  if (!st.ok()) spdlog::warn("fingerprint backfill: {}", st.ToString());
  return run;
}

}  // namespace redrive::engine
