#include "engine/services/operation_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/job_cursor.h"
#include "core/time_format.h"
#include "engine/job_ops.h"

namespace redrive::engine {
namespace operation_ops {
namespace {

// The jobs of one batch: at most `batch`, and at most the rate's second.
int BatchSize(const Operation& op, int batch) {
  if (!op.rate_per_second || *op.rate_per_second <= 0) return batch;
  const double per_second = std::floor(*op.rate_per_second);
  return static_cast<int>(std::clamp(per_second, 1.0, static_cast<double>(batch)));
}

Micros PaceOf(double rate, size_t jobs) {
  const double us = 1e6 * static_cast<double>(jobs) / rate;
  return us < 9e15 ? Micros(static_cast<int64_t>(us)) : Micros(int64_t{9'000'000'000'000'000});
}

void Finish(Operation& op, OperationState state, Instant now) {
  op.state = state;
  op.finished_at = now;
  op.next_batch_at.reset();
}

// The event the operation applies to each of its jobs (not a purge, which
// deletes).
Event EventOf(const Operation& op) {
  const RetryBudget budget = op.budget.value_or(RetryBudget{});
  switch (op.action) {
    case OperationAction::kRetry: {
      event::Retry retry;
      retry.source = "operation";
      retry.budget = budget;
      retry.target_queue = op.target_queue;
      return retry;
    }
    case OperationAction::kRelease:
      return event::ReleaseQuarantine{budget, op.target_queue};
    case OperationAction::kMove:
      return event::Move{op.target_queue.value_or(""), op.created_by, op.id};
    case OperationAction::kCancel:
    case OperationAction::kPurge:
      break;
  }
  return event::Cancel{};
}

// Applies the action to `jobs`: how many it changed (the others were
// changed by another request meanwhile, or no longer match).
Result<long long> Apply(store::WriteTx& tx, TxContext& ctx, const Operation& op,
                        const std::vector<Job>& jobs) {
  if (op.action == OperationAction::kPurge) {
    std::vector<std::string> ids;
    ids.reserve(jobs.size());
    for (const Job& j : jobs) ids.push_back(j.id);
    return tx.DeleteJobs(ids);
  }
  const Event event = EventOf(op);
  REDRIVE_ASSIGN_OR_RETURN(
      std::vector<Change> changes,
      ops::ApplyToLoadedBatch(tx, ctx, jobs, [&event](const Job&) { return event; }));
  return static_cast<long long>(changes.size());
}

}  // namespace

store::JobSelection SelectionOf(const store::OperationRecord& rec, int limit) {
  store::JobSelection sel;
  sel.match = rec.selection;
  sel.match.limit = limit;
  sel.statuses = rec.operation.statuses;
  // A cursor in another form (a bare id, before cursors named the creation
  // time) starts over: every action of that time (retry, purge, cancel,
  // release; move came with this form) takes the jobs it changed out of the
  // statuses it selects, so the walk only meets again those it failed on.
  if (rec.operation.cursor) sel.after = ParseJobCursor(*rec.operation.cursor);
  return sel;
}

Result<BatchOutcome> RunBatch(store::WriteTx& tx, TxContext& ctx, const std::string& id,
                              Instant now, int batch) {
  BatchOutcome out;
  REDRIVE_ASSIGN_OR_RETURN(store::OperationRecord rec, tx.GetOperation(id));  // locked
  Operation& op = rec.operation;
  if (IsFinished(op.state) || (op.next_batch_at && *op.next_batch_at > now)) return out;
  if (op.state == OperationState::kQueued) {
    op.state = OperationState::kRunning;
    op.started_at = now;
    REDRIVE_ASSIGN_OR_RETURN(op.matched, tx.CountSelectedJobs(SelectionOf(rec, 0)));
  }
  op.updated_at = now;
  const int size = BatchSize(op, batch);
  REDRIVE_ASSIGN_OR_RETURN(store::SelectedJobs selected,
                           tx.SelectJobsAfter(SelectionOf(rec, size)));
  std::vector<Job>& jobs = selected.jobs;
  if (!jobs.empty() && op.target_queue) {
    // A target queue disabled since the operation was created stops it.
    Status target = ops::EnsureTargetQueue(tx, ctx, op.target_queue);
    if (target.code() == ErrorCode::kConflict) {
      op.error = target.message();
      Finish(op, OperationState::kFailed, now);
      REDRIVE_RETURN_IF_ERROR(tx.UpdateOperation(op));
      return out;
    }
    REDRIVE_RETURN_IF_ERROR(target);
  }
  REDRIVE_ASSIGN_OR_RETURN(long long changed, Apply(tx, ctx, op, jobs));
  out.handled = static_cast<long long>(jobs.size());
  op.done += changed;
  op.failed += out.handled - changed;
  if (selected.next) op.cursor = FormatJobCursor(*selected.next);
  // More jobs than matched at the start (new ones arrived) grow `matched`.
  op.matched = std::max(op.matched, op.done + op.failed);
  if (static_cast<int>(jobs.size()) < size) {
    Finish(op, OperationState::kCompleted, now);
  } else if (op.rate_per_second && *op.rate_per_second > 0) {
    op.next_batch_at = AddClamped(now, PaceOf(*op.rate_per_second, jobs.size()));
  } else {
    op.next_batch_at.reset();
    out.more_now = true;
  }
  REDRIVE_RETURN_IF_ERROR(tx.UpdateOperation(op));
  return out;
}

int YieldingBatch(int batch, bool busy, int yield_share) {
  return busy && yield_share < 100 ? std::min(batch, kYieldBatch) : batch;
}

std::optional<Micros> YieldPause(Micros worked, int yield_share) {
  if (yield_share >= 100 || worked <= Micros(0)) return std::nullopt;
  return worked * (100 - yield_share) / std::max(yield_share, 1);
}

}  // namespace operation_ops

OperationRunner::OperationRunner(Committer& committer, store::Store& store, const Clock& clock,
                                 int batch, int yield_share)
    : committer_(committer),
      store_(store),
      clock_(clock),
      batch_(std::clamp(batch, 1, kMaxOperationBatch)),
      yield_share_(std::clamp(yield_share, 1, 100)) {}

ServiceRun OperationRunner::RunOnce(Instant now) {
  // Requests since the last pass began (during it, or since it ended).
  const uint64_t requests_before = committer_.requests_submitted();
  const bool busy = requests_before != requests_seen_;
  requests_seen_ = requests_before;
  Micros worked{0};
  ServiceRun run = RunPass(now, operation_ops::YieldingBatch(batch_, busy, yield_share_), worked);
  const bool busy_now = busy || committer_.requests_submitted() != requests_before;
  if (run.more && busy_now) {
    if (auto pause = operation_ops::YieldPause(worked, yield_share_)) {
      run.more = false;
      run.next_run = now + *pause;
    }
  }
  return run;
}

ServiceRun OperationRunner::RunPass(Instant now, int batch, Micros& worked) {
  ServiceRun run;
  // The due operations are listed again unless the last pass ran each of
  // them and left them due at once, less than a listing interval ago.
  if (!due_now_ || now >= listed_at_ + kRelistEvery || now < listed_at_) {
    Status listed = committer_.RunAndWait([&](store::WriteTx& tx, TxContext&) -> Status {
      due_.clear();
      REDRIVE_ASSIGN_OR_RETURN(
          auto ops, tx.SelectDueOperations(now, static_cast<int>(kMaxUnfinishedOperations)));
      for (const store::OperationRecord& rec : ops) due_.push_back(rec.operation.id);
      return Status::Ok();
    });
    if (!listed.ok()) {
      spdlog::warn("operations: {}", listed.ToString());
      return run;
    }
    listed_at_ = now;
  }
  due_now_ = !due_.empty();
  for (const std::string& id : due_) {
    operation_ops::BatchOutcome outcome;
    Micros ran{0};  // like `outcome`, rewritten whole by each run (a re-run op)
    Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext& ctx) -> Status {
      const Instant started = clock_.Now();
      ctx.now = now;
      REDRIVE_ASSIGN_OR_RETURN(outcome, operation_ops::RunBatch(tx, ctx, id, now, batch));
      ran = std::max(Micros(0), clock_.Now() - started);
      return Status::Ok();
    });
    if (!st.ok()) {
      spdlog::warn("operation {}: batch failed (retried on the next pass): {}", id, st.ToString());
      due_now_ = false;
      continue;
    }
    worked += ran;
    run.changed += outcome.handled;
    run.more = run.more || outcome.more_now;
    due_now_ = due_now_ && outcome.more_now;
  }
  if (run.more) return run;  // the loop runs it again at once: no need to know when
  if (auto tx = store_.BeginRead(); tx.ok()) {
    if (auto next = (*tx)->NextOperationDue(); next.ok()) run.next_run = *next;
  }
  return run;
}

}  // namespace redrive::engine
