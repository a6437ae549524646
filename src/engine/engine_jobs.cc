// Producer and worker operations.
#include <atomic>

#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {

using store::WriteTx;

void Engine::Enqueue(EnqueueParams p, Callback<EnqueueResult> done) {
  impl_->Write<EnqueueResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) { return ops::Enqueue(tx, ctx, p); },
      std::move(done));
}

void Engine::EnqueueBulk(BulkEnqueueParams p, Callback<std::vector<BulkItemResult>> done) {
  impl_->Write<std::vector<BulkItemResult>>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<std::vector<BulkItemResult>> {
        REDRIVE_ASSIGN_OR_RETURN(auto results, ops::EnqueueBatch(tx, ctx, p.jobs));
        std::vector<BulkItemResult> out(results.size());
        for (size_t i = 0; i < results.size(); ++i) {
          out[i].index = i;
          if (results[i].ok()) {
            out[i].job_id = results[i]->id;
            out[i].created = results[i]->created;
          } else {
            out[i].error = results[i].status();  // refused: nothing written for it
          }
        }
        return out;
      },
      std::move(done));
}

// A claim in progress: its acks are applied on the first attempt only; later
// attempts (after a long-poll wake-up) only claim.
struct Engine::Impl::ClaimState {
  ClaimParams params;
  Callback<ClaimResult> done;
  Instant deadline;  // engine clock: when the long-poll answers empty
  bool first = true;
  std::vector<AckItemResult> ack_results;

  void Finish(std::vector<Job> jobs) { done(ClaimResult{std::move(jobs), std::move(ack_results)}); }
};

void Engine::Claim(ClaimParams p, Callback<ClaimResult> done) {
  auto state = std::make_shared<Impl::ClaimState>();
  state->deadline = impl_->clock.Now() + p.wait;
  state->params = std::move(p);
  state->done = std::move(done);
  impl_->ClaimAttempt(std::move(state));
}

void Engine::Impl::ClaimAttempt(std::shared_ptr<ClaimState> state) {
  // A caller that left gets nothing more (its acks, if any, were applied).
  if (!state->first && state->params.abandoned.stop_requested()) return state->Finish({});
  // The queue's wake sequence, read by the run that commits before it reads
  // anything: a wake-up after it means a commit this attempt may not have
  // seen (waiters.h). Read in the run, not at submission: with group commit
  // no local wake-up then falls between the read and the parking (`after`
  // runs before the batch's wake-ups), so a claim is never re-run for
  // commits it did see. Like the result, each run rewrites it whole.
  auto seen = std::make_shared<std::atomic<uint64_t>>(0);
  Write<ClaimResult>(
      [this, state, seen](WriteTx& tx, TxContext& ctx) -> Result<ClaimResult> {
        const ClaimParams& p = state->params;
        seen->store(waiters.Sequence(p.queue_name));
        ClaimResult r;
        if (state->first) {
          REDRIVE_ASSIGN_OR_RETURN(r.ack_results,
                                   ops::ApplyAcks(tx, ctx, p.worker_id, p.acks, p.scope));
        }
        if (p.abandoned.stop_requested()) return r;  // no job for a caller that left
        REDRIVE_ASSIGN_OR_RETURN(
            r.jobs, ops::Claim(tx, ctx, p.queue_name, p.worker_id, p.limit, p.lease_duration));
        return r;
      },
      [this, state, seen](Result<ClaimResult> r) {
        const bool first = state->first;
        state->first = false;
        if (!r.ok()) {
          // After the first attempt the acks are committed: report them.
          if (first) return state->done(r.status());
          return state->Finish({});
        }
        if (first) state->ack_results = std::move(r->ack_results);
        const Instant now = clock.Now();
        if (!r->jobs.empty() || now >= state->deadline ||
            state->params.abandoned.stop_requested()) {
          return state->Finish(std::move(r->jobs));
        }
        Waiters::Park park{seen->load(), state->deadline, std::nullopt, state->params.abandoned};
        if (options.claim_repoll > std::chrono::milliseconds::zero() &&
            now + options.claim_repoll < state->deadline) {
          park.repoll_at = now + options.claim_repoll;
        }
        switch (waiters.Add(state->params.queue_name, park, [this, state](bool timed_out) {
          if (timed_out) return state->Finish({});
          ClaimAttempt(state);
        })) {
          case Waiters::Parked::kYes:
            return loop.NudgeWaiters(park.repoll_at.value_or(state->deadline));
          case Waiters::Parked::kWokenMeanwhile:
            return ClaimAttempt(state);
          case Waiters::Parked::kClosed:
          case Waiters::Parked::kAbandoned:
            return state->Finish({});
        }
      });
}

void Engine::Heartbeat(HeartbeatParams p, Callback<Job> done) {
  impl_->Write<Job>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<Job> {
        REDRIVE_ASSIGN_OR_RETURN(
            Change c,
            ops::ApplyToJob(tx, ctx, p.job_id,
                            event::Heartbeat{p.worker_id, p.lease_id, p.lease_duration}, p.scope));
        return std::move(c.after);
      },
      std::move(done));
}

void Engine::Complete(CompleteParams p, StatusCallback done) {
  impl_->Write<bool>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<bool> {
        REDRIVE_RETURN_IF_ERROR(
            ops::ApplyToJob(tx, ctx, p.job_id,
                            event::Complete{p.worker_id, p.lease_id, p.result_json}, p.scope)
                .status());
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

void Engine::Fail(FailParams p, Callback<FailResult> done) {
  impl_->Write<FailResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<FailResult> {
        REDRIVE_ASSIGN_OR_RETURN(
            Change c, ops::ApplyToJob(tx, ctx, p.job_id,
                                      event::Fail{p.worker_id, p.lease_id, p.error, p.no_retry,
                                                  p.retry_after, p.details_json},
                                      p.scope));
        FailResult r;
        r.outcome = ops::FailOutcomeOf(c.after);
        r.job = std::move(c.after);
        return r;
      },
      std::move(done));
}

void Engine::AckBatch(std::string worker_id, std::vector<Ack> acks, QueueScope scope,
                      Callback<std::vector<AckItemResult>> done) {
  impl_->Write<std::vector<AckItemResult>>(
      [worker_id = std::move(worker_id), acks = std::move(acks), scope = std::move(scope)](
          WriteTx& tx, TxContext& ctx) -> Result<std::vector<AckItemResult>> {
        return ops::ApplyAcks(tx, ctx, worker_id, acks, scope);
      },
      std::move(done));
}

}  // namespace redrive::engine
