// The operator audit log and Idempotency-Keys of operator routes: the
// reservation before an operator request runs, the record of its outcome
// after, and the log's reads. Pruned by services/audit_retention.h.
#include "core/ids.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

void Engine::ReserveIdempotencyKey(IdempotencyRecord record, Callback<IdempotencyClaim> done) {
  impl_->Write<IdempotencyClaim>(
      [record = std::move(record), ttl = impl_->options.idempotency_ttl](
          WriteTx& tx, TxContext& ctx) mutable -> Result<IdempotencyClaim> {
        record.created_at = ctx.now;
        record.expires_at = ctx.now + ttl;
        IdempotencyClaim claim;
        REDRIVE_ASSIGN_OR_RETURN(claim.reserved, tx.ReserveIdempotencyKey(record));
        if (!claim.reserved) {
          REDRIVE_ASSIGN_OR_RETURN(claim.existing,
                                   tx.GetIdempotencyRecord(record.scope, record.key));
        }
        return claim;
      },
      std::move(done));
}

void Engine::FinishOperatorRequest(OperatorOutcome outcome, StatusCallback done) {
  impl_->Write<bool>(
      [outcome = std::move(outcome)](WriteTx& tx, TxContext& ctx) -> Result<bool> {
        if (outcome.entry) {
          AuditEntry entry = *outcome.entry;  // the op may run again: keep `outcome` whole
          entry.at = ctx.now;
          entry.id = NewUuidV7(ctx.now, ctx.random);
          REDRIVE_RETURN_IF_ERROR(tx.InsertAuditEntry(entry));
        }
        if (outcome.key) {
          if (outcome.release_key) {
            REDRIVE_RETURN_IF_ERROR(tx.DeleteIdempotencyKey(outcome.key->scope, outcome.key->key));
          } else {
            REDRIVE_RETURN_IF_ERROR(tx.CompleteIdempotencyKey(*outcome.key));
          }
        }
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

void Engine::ListAudit(AuditFilter filter, Callback<std::vector<AuditEntry>> done) {
  impl_->Read<std::vector<AuditEntry>>(
      [f = std::move(filter)](ReadTx& tx) { return tx.ListAudit(f); }, std::move(done));
}

}  // namespace redrive::engine
