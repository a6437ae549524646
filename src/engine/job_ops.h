// The bodies of the engine's write operations: each runs inside a write
// transaction of the write executor (write_executor.h; it may run again on a
// fresh transaction after the store aborted one), decides every state change with core's
// Apply(), writes it with the store's guarded ApplyChange (which also writes
// the history entry Apply built), and tells the write hooks what it wrote (TxContext::Wrote).
// Free functions over (WriteTx, TxContext) so the engine, the services and
// tests share one implementation.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/transition.h"
#include "engine/requests.h"
#include "engine/tx_context.h"
#include "store/store.h"

namespace redrive::engine::ops {

// Applies `event` to the stored job `job` and writes the change.
Result<Change> ApplyToLoaded(store::WriteTx& tx, TxContext& ctx, const Job& job,
                             const Event& event);
// ApplyToLoaded for each of `jobs` with the event `event_for(job)` gives,
// the store writes as one batch (WriteTx::ApplyChanges: one round trip on
// PostgreSQL). A job whose transition is refused, or whose guard no longer
// holds (another node took it), is skipped; the changes written, in order.
Result<std::vector<Change>> ApplyToLoadedBatch(store::WriteTx& tx, TxContext& ctx,
                                               const std::vector<Job>& jobs,
                                               const std::function<Event(const Job&)>& event_for);
// Loads job `id` (NOT_FOUND if absent; ACCESS_DENIED if its queue is
// outside `scope`), then ApplyToLoaded.
Result<Change> ApplyToJob(store::WriteTx& tx, TxContext& ctx, const std::string& id,
                          const Event& event, const QueueScope& scope = {});

// The queue a redrive moves jobs into (event::Retry::target_queue): created
// with the defaults when new (within the queue limit), CONFLICT when
// disabled. Nothing to do without a target.
Status EnsureTargetQueue(store::WriteTx& tx, TxContext& ctx,
                         const std::optional<std::string>& target);

// Inserts a job with its queue's defaults (creating the queue if needed).
Result<EnqueueResult> Enqueue(store::WriteTx& tx, TxContext& ctx, const EnqueueParams& p);
// Enqueue of each item, as batches: one idempotency-key lookup and one
// insert batch for all (WriteTx::FindIdempotencyKeys, InsertJobs: a round
// trip each on PostgreSQL). results[i] is item i's: a refusal (VALIDATION:
// expires_at already passed; CONFLICT: the queue is disabled) is that
// item's result, written nothing; any other failure fails the call.
// Where `blocked` (empty, or one per item) is true, the job is inserted
// blocked: it waits for dependencies the caller writes next.
Result<std::vector<Result<EnqueueResult>>> EnqueueBatch(store::WriteTx& tx, TxContext& ctx,
                                                        std::span<const EnqueueParams> items,
                                                        const std::vector<bool>& blocked = {});

// One claimer of a claim several requests make together (ClaimFor).
struct Claimer {
  std::string worker_id;
  int limit = 1;
  std::chrono::seconds lease_duration{30};
};
// Claims jobs of one queue for one claimer or several at once: none if the
// queue is paused or disabled, and due scheduled jobs of the queue promoted
// first. The reads once for all (the sum of the limits), the jobs in claim
// order dealt to the claimers in their order, each up to its limit, the
// claims written as one batch. A deregistered worker gets nothing.
struct Claimed {
  std::vector<std::vector<Job>> jobs;  // jobs[i]: claimers[i]'s
  // The claim looked and left no job of the queue claimable (it dealt fewer
  // than it was asked for, or the queue is paused, disabled or unknown), as
  // far as this transaction can see (Waiters::LookedEmpty).
  bool exhausted = false;
};
Result<Claimed> ClaimFor(store::WriteTx& tx, TxContext& ctx, const std::string& queue,
                         std::span<const Claimer> claimers);

// One event for the stored job `job_id`, refused (ACCESS_DENIED) when the
// job's queue is outside `*scope` (ApplyToJobs).
struct JobEvent {
  std::string job_id;
  Event event;
  const QueueScope* scope = nullptr;  // null: every queue
};
// ApplyToJob of each item, with one batched read (GetJobs) and one batched
// write (ApplyChanges) — a few round trips on PostgreSQL instead of two per
// item — unless a job appears twice (then one by one: the second must see the
// first's write). result[i] is item i's: the job after, or why it was
// refused (NOT_FOUND, ACCESS_DENIED, the transition's refusal, or CONFLICT
// when its guard no longer held); only a store error fails the call.
Result<std::vector<Result<Job>>> ApplyToJobs(store::WriteTx& tx, TxContext& ctx,
                                             std::span<const JobEvent> items);

// The answer to a failure, from its job after it: POST /jobs/{id}/fail's and
// a failure ack's are both made here, so they cannot drift apart.
FailOutcome FailOutcomeOf(const Job& after);

// The event an ack of `worker_id` applies: a complete, or a fail when it
// carries an error.
Event AckEvent(const std::string& worker_id, const Ack& ack);
// The acks' results from ApplyToJobs's (applied[i] is acks[i]'s): a refusal
// an ack cannot answer per item (VALIDATION) fails the call.
Result<std::vector<AckItemResult>> AckResults(const std::vector<Ack>& acks,
                                              std::span<Result<Job>> applied);
// Completes (no error) or fails each acked job of `worker_id`, in order
// (ApplyToJobs). A refusal (stale lease, wrong state, unknown job, a queue
// outside `scope`: ACCESS_DENIED) is that ack's result; a store error, or a
// refusal of another kind (VALIDATION), fails the call.
Result<std::vector<AckItemResult>> ApplyAcks(store::WriteTx& tx, TxContext& ctx,
                                             const std::string& worker_id,
                                             const std::vector<Ack>& acks,
                                             const QueueScope& scope = {});

}  // namespace redrive::engine::ops
