// Producer and worker operations.
#include <atomic>
#include <deque>
#include <mutex>

#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {

using store::WriteTx;

namespace {

// How many requests one coalesced op takes at most, how many jobs one claim
// group asks for in all, and how many payload bytes one enqueue group
// carries (a larger payload runs alone); more open a new group.
constexpr size_t kMaxGroupMembers = 64;
constexpr int kMaxGroupClaimLimit = 1000;
constexpr size_t kMaxGroupPayloadBytes = size_t{1} << 20;

}  // namespace

struct Engine::Impl::EnqueueGroup {
  std::vector<EnqueueParams> items;  // ops::EnqueueBatch takes them as a span
  std::vector<Callback<EnqueueResult>> callers;
  size_t payload_bytes = 0;

  bool Fits(const EnqueueParams& p) const {
    return items.size() < kMaxGroupMembers &&
           payload_bytes + p.payload_json.size() <= kMaxGroupPayloadBytes;
  }
  void Add(EnqueueParams p, Callback<EnqueueResult> done) {
    payload_bytes += p.payload_json.size();
    items.push_back(std::move(p));
    callers.push_back(std::move(done));
  }
};

void Engine::Enqueue(EnqueueParams p, Callback<EnqueueResult> done) {
  Impl& impl = *impl_;
  auto group = std::make_shared<Impl::EnqueueGroup>();
  {
    std::lock_guard lock(impl.coalesce_mu);
    const bool join =
        impl.options.coalesce_writes && impl.open_enqueues && impl.open_enqueues->Fits(p);
    Impl::EnqueueGroup& to = join ? *impl.open_enqueues : *group;
    to.Add(std::move(p), std::move(done));
    if (join) return;  // its op is waiting for the writer
    if (impl.options.coalesce_writes) impl.open_enqueues = group;
  }
  // One batch for every member: an item refused (expires_at passed, a
  // disabled queue, the queue limit) is refused alone, two members with one
  // idempotency key make one job (the second answered created:false), and
  // only a store error fails every member.
  impl.Write<std::vector<Result<EnqueueResult>>>(
      [&impl, group](WriteTx& tx, TxContext& ctx) -> Result<std::vector<Result<EnqueueResult>>> {
        impl.CloseGroup(impl.open_enqueues, group);
        return ops::EnqueueBatch(tx, ctx, group->items);
      },
      [&impl, group](Result<std::vector<Result<EnqueueResult>>> r) {
        impl.CloseGroup(impl.open_enqueues, group);  // a stopped writer answers without running it
        for (size_t i = 0; i < group->callers.size(); ++i) {
          group->callers[i](r.ok() ? std::move((*r)[i]) : Result<EnqueueResult>(r.status()));
        }
      });
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

// What a claim group's op returns: each member's result, and whether the
// claim left the queue with nothing claimable (ops::Claimed::exhausted), as
// of the transaction's time.
struct Engine::Impl::GroupClaim {
  std::vector<ClaimResult> results;
  bool exhausted = false;
  Instant looked_at;
};

struct Engine::Impl::ClaimGroup {
  std::string queue;
  std::vector<std::shared_ptr<ClaimState>> members;

  bool Fits(int more) const {
    if (members.size() >= kMaxGroupMembers) return false;
    int limit = more;
    for (const auto& m : members) limit += m->params.limit;
    return limit <= kMaxGroupClaimLimit;
  }
};

struct Engine::Impl::JobEventGroup {
  // Who asked: the caller's queues and its answer. A deque, so that
  // items[i].scope, which points at callers[i].scope, never moves.
  struct Caller {
    QueueScope scope;
    Callback<Job> done;
  };
  std::vector<ops::JobEvent> items;  // ops::ApplyToJobs takes them as a span
  std::deque<Caller> callers;

  void Add(std::string job_id, Event event, QueueScope scope, Callback<Job> done) {
    callers.push_back({std::move(scope), std::move(done)});
    items.push_back({std::move(job_id), std::move(event), &callers.back().scope});
  }
};

// A group is open while it is the one its requests join; its op closes it
// as it starts, or as it is answered without having run (a stopped writer).
// Members are added under coalesce_mu while open, and read only once closed.
void Engine::Impl::CloseClaimGroup(const ClaimGroup& group) {
  std::lock_guard lock(coalesce_mu);
  auto open = open_claims.find(group.queue);
  if (open != open_claims.end() && open->second.get() == &group) open_claims.erase(open);
}

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
  const std::string& queue = state->params.queue_name;
  // A new claim with no acks to apply that would wait: if a claim of this
  // node found the queue empty a moment ago and nothing has woken the queue
  // since, its transaction would read the same nothing, so it parks now
  // with what that one saw (Waiters::LookedEmpty). A claim that does not
  // wait always looks, and so does a woken one: a hand-over wakes it to
  // take a job in the transaction that offers it.
  if (state->first && state->params.acks.empty() &&
      options.claim_known_empty_for > std::chrono::milliseconds::zero()) {
    const Instant now = clock.Now();
    if (now < state->deadline) {
      if (auto seen = waiters.KnownEmpty(queue, now - options.claim_known_empty_for)) {
        return AfterClaim(state, *seen, ClaimResult{});
      }
    }
  }
  auto group = std::make_shared<ClaimGroup>();
  {
    std::lock_guard lock(coalesce_mu);
    if (options.coalesce_writes) {
      auto open = open_claims.find(queue);
      if (open != open_claims.end() && open->second->Fits(state->params.limit)) {
        open->second->members.push_back(std::move(state));
        return;  // its op is waiting for the writer
      }
      open_claims[queue] = group;  // a full group stays as it is
    }
    group->queue = queue;
    group->members.push_back(std::move(state));
  }
  RunClaimGroup(std::move(group));
}

void Engine::Impl::RunClaimGroup(std::shared_ptr<ClaimGroup> group) {
  // The queue's wake sequence, read by the run that commits before it reads
  // anything: a wake-up after it means a commit this attempt may not have
  // seen (waiters.h). Read in the run, not at submission: with group commit
  // no local wake-up then falls between the read and the parking (`after`
  // runs before the batch's wake-ups), so a claim is never re-run for
  // commits it did see. Like the result, each run rewrites it whole.
  auto seen = std::make_shared<std::atomic<uint64_t>>(0);
  Write<GroupClaim>(
      [this, group, seen](WriteTx& tx, TxContext& ctx) -> Result<GroupClaim> {
        CloseClaimGroup(*group);
        seen->store(waiters.Sequence(group->queue));
        const auto& members = group->members;
        GroupClaim out{std::vector<ClaimResult>(members.size()), false, ctx.now};
        std::vector<ClaimResult>& results = out.results;
        // The first attempts' acks, all in one batch: an ack is refused
        // per item, and only a store error fails them.
        std::vector<ops::JobEvent> acks;
        for (const auto& m : members) {
          if (!m->first) continue;
          for (const Ack& ack : m->params.acks) {
            acks.push_back({ack.job_id, ops::AckEvent(m->params.worker_id, ack), &m->params.scope});
          }
        }
        if (!acks.empty()) {
          REDRIVE_ASSIGN_OR_RETURN(std::vector<Result<Job>> applied,
                                   ops::ApplyToJobs(tx, ctx, acks));
          size_t next = 0;
          for (size_t i = 0; i < members.size(); ++i) {
            if (!members[i]->first) continue;
            const std::vector<Ack>& sent = members[i]->params.acks;
            REDRIVE_ASSIGN_OR_RETURN(
                results[i].ack_results,
                ops::AckResults(sent, std::span(applied).subspan(next, sent.size())));
            next += sent.size();
          }
        }
        // No job for a caller that left.
        std::vector<ops::Claimer> claimers;
        std::vector<size_t> claimer_of;
        for (size_t i = 0; i < members.size(); ++i) {
          const ClaimParams& p = members[i]->params;
          if (p.abandoned.stop_requested()) continue;
          claimers.push_back({p.worker_id, p.limit, p.lease_duration});
          claimer_of.push_back(i);
        }
        if (claimers.empty()) return out;
        REDRIVE_ASSIGN_OR_RETURN(ops::Claimed claimed,
                                 ops::ClaimFor(tx, ctx, group->queue, claimers));
        for (size_t k = 0; k < claimed.jobs.size(); ++k) {
          results[claimer_of[k]].jobs = std::move(claimed.jobs[k]);
        }
        out.exhausted = claimed.exhausted;
        return out;
      },
      [this, group, seen](Result<GroupClaim> r) {
        CloseClaimGroup(*group);  // a stopped writer answers without running it
        // Before any member parks: the next claims may park with it at once.
        if (r.ok() && r->exhausted) waiters.LookedEmpty(group->queue, seen->load(), r->looked_at);
        for (size_t i = 0; i < group->members.size(); ++i) {
          AfterClaim(group->members[i], seen->load(),
                     r.ok() ? Result<ClaimResult>(std::move(r->results[i])) : r.status());
        }
      });
}

void Engine::Impl::AfterClaim(const std::shared_ptr<ClaimState>& state, uint64_t seen,
                              Result<ClaimResult> r) {
  const bool first = state->first;
  state->first = false;
  if (!r.ok()) {
    // After the first attempt the acks are committed: report them.
    if (first) return state->done(r.status());
    return state->Finish({});
  }
  if (first) state->ack_results = std::move(r->ack_results);
  const Instant now = clock.Now();
  if (!r->jobs.empty() || now >= state->deadline || state->params.abandoned.stop_requested()) {
    return state->Finish(std::move(r->jobs));
  }
  Waiters::Park park{seen, state->deadline, std::nullopt, state->params.abandoned};
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
}

void Engine::Impl::ApplyJobEvent(std::string job_id, Event event, QueueScope scope,
                                 Callback<Job> done) {
  auto group = std::make_shared<JobEventGroup>();
  {
    std::lock_guard lock(coalesce_mu);
    const bool join = options.coalesce_writes && open_job_events &&
                      open_job_events->items.size() < kMaxGroupMembers;
    JobEventGroup& to = join ? *open_job_events : *group;
    to.Add(std::move(job_id), std::move(event), std::move(scope), std::move(done));
    if (join) return;  // its op is waiting for the writer
    if (options.coalesce_writes) open_job_events = group;
  }
  Write<std::vector<Result<Job>>>(
      [this, group](WriteTx& tx, TxContext& ctx) -> Result<std::vector<Result<Job>>> {
        CloseGroup(open_job_events, group);
        return ops::ApplyToJobs(tx, ctx, group->items);
      },
      [this, group](Result<std::vector<Result<Job>>> r) {
        CloseGroup(open_job_events, group);  // a stopped writer answers without running it
        for (size_t i = 0; i < group->callers.size(); ++i) {
          group->callers[i].done(r.ok() ? std::move((*r)[i]) : Result<Job>(r.status()));
        }
      });
}

void Engine::Heartbeat(HeartbeatParams p, Callback<Job> done) {
  impl_->ApplyJobEvent(
      std::move(p.job_id),
      event::Heartbeat{std::move(p.worker_id), std::move(p.lease_id), p.lease_duration},
      std::move(p.scope), std::move(done));
}

void Engine::Complete(CompleteParams p, StatusCallback done) {
  impl_->ApplyJobEvent(
      std::move(p.job_id),
      event::Complete{std::move(p.worker_id), std::move(p.lease_id), std::move(p.result_json)},
      std::move(p.scope), [done = std::move(done)](Result<Job> r) { done(r.status()); });
}

void Engine::Fail(FailParams p, Callback<FailResult> done) {
  impl_->ApplyJobEvent(
      std::move(p.job_id),
      event::Fail{std::move(p.worker_id), std::move(p.lease_id), std::move(p.error), p.no_retry,
                  p.retry_after, std::move(p.details_json)},
      std::move(p.scope), [done = std::move(done)](Result<Job> r) {
        if (!r.ok()) return done(r.status());
        FailResult f;
        f.outcome = ops::FailOutcomeOf(*r);
        f.job = std::move(*r);
        done(std::move(f));
      });
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
