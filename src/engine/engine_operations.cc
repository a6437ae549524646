// Bulk operations (core/operation.h): create (or preview), read, cancel.
// Their batches run in services/operation_runner.h.
#include "core/ids.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"
#include "engine/services/operation_runner.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

store::OperationRecord RecordOf(const CreateOperationParams& p) {
  store::OperationRecord rec;
  store::DeadLetterSelection& sel = rec.selection;
  sel.job_ids = p.job_ids;
  if (p.job_ids.empty()) {
    sel.queue_name = p.filter.queue_name;
    sel.dead_reason = p.filter.dead_reason;
    sel.tag = p.filter.tag;
    sel.error_prefix = p.filter.error_prefix;
    sel.fingerprint = p.filter.fingerprint;
    sel.dead_before = p.dead_before;
  }
  Operation& op = rec.operation;
  op.action = p.action;
  op.selector_json = p.selector_json;
  op.statuses = p.status ? std::vector<JobStatus>{*p.status} : ActionStatuses(p.action);
  op.rate_per_second = p.rate_per_second;
  op.budget = p.budget;
  op.target_queue = p.target_queue;
  op.reason = p.reason;
  op.created_by = p.created_by;
  return rec;
}

}  // namespace

void Engine::CreateOperation(CreateOperationParams p, Callback<CreateOperationResult> done) {
  impl_->Write<CreateOperationResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<CreateOperationResult> {
        if (p.action == OperationAction::kMove && !p.target_queue) {
          return Status::Validation("target_queue", "a move needs a target_queue");
        }
        store::OperationRecord rec = RecordOf(p);
        CreateOperationResult r;
        r.dry_run = p.dry_run;
        REDRIVE_ASSIGN_OR_RETURN(long long matched,
                                 tx.CountSelectedJobs(operation_ops::SelectionOf(rec, 0)));
        if (p.dry_run) {
          r.matched = matched;
          REDRIVE_ASSIGN_OR_RETURN(
              store::SelectedJobs sample,
              tx.SelectJobsAfter(operation_ops::SelectionOf(rec, kOperationSampleSize)));
          r.sample = std::move(sample.jobs);
          return r;
        }
        // A disabled target queue is refused now rather than at the first batch.
        REDRIVE_RETURN_IF_ERROR(ops::EnsureTargetQueue(tx, ctx, p.target_queue));
        Operation& op = rec.operation;
        op.id = NewUuidV7(ctx.now, ctx.random);
        op.state = OperationState::kQueued;
        op.matched = matched;  // counted again when it starts
        op.created_at = op.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.InsertOperation(rec, kMaxUnfinishedOperations));
        r.operation = op;
        return r;
      },
      [impl = impl_.get(), done = std::move(done)](Result<CreateOperationResult> r) {
        // Its first batch is due now: wake the runner.
        if (r.ok() && !r->dry_run) impl->loop.Nudge(r->operation.created_at);
        done(std::move(r));
      });
}

void Engine::GetOperation(std::string id, Callback<Operation> done) {
  impl_->Read<Operation>(
      [id = std::move(id)](ReadTx& tx) -> Result<Operation> {
        REDRIVE_ASSIGN_OR_RETURN(store::OperationRecord rec, tx.GetOperation(id));
        return std::move(rec.operation);
      },
      std::move(done));
}

void Engine::ListOperations(int limit, int offset, Callback<std::vector<Operation>> done) {
  impl_->Read<std::vector<Operation>>(
      [limit, offset](ReadTx& tx) -> Result<std::vector<Operation>> {
        REDRIVE_ASSIGN_OR_RETURN(auto recs, tx.ListOperations(limit, offset));
        std::vector<Operation> out;
        out.reserve(recs.size());
        for (store::OperationRecord& rec : recs) out.push_back(std::move(rec.operation));
        return out;
      },
      std::move(done));
}

void Engine::CancelOperation(std::string id, Callback<Operation> done) {
  impl_->Write<Operation>(
      [id = std::move(id)](WriteTx& tx, TxContext& ctx) -> Result<Operation> {
        REDRIVE_ASSIGN_OR_RETURN(store::OperationRecord rec, tx.GetOperation(id));  // locked
        Operation& op = rec.operation;
        if (IsFinished(op.state)) {
          return Status::Conflict("operation " + id + " has already finished (" +
                                  OperationStateName(op.state) + ")");
        }
        op.state = OperationState::kCancelled;
        op.finished_at = op.updated_at = ctx.now;
        op.next_batch_at.reset();
        REDRIVE_RETURN_IF_ERROR(tx.UpdateOperation(op));
        return std::move(op);
      },
      std::move(done));
}

}  // namespace redrive::engine
