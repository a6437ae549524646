// What one op of a write transaction needs besides the store: the
// transaction's `now`, randomness, the hooks that see each write
// (write_hook.h) and what they took for the transaction, and a record of the
// op's effects (what it made due, what it counted) that the write executor
// hands to its after-commit sinks: waking long-poll waiters and background
// services, moving the metrics counters.
//
// A TxContext belongs to one op's run on one thread; a re-run op gets a fresh
// one, so effects of a run that did not commit are never counted.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/clock.h"
#include "core/job.h"
#include "core/limits.h"
#include "core/new_job.h"
#include "core/queue.h"
#include "core/random.h"
#include "core/realtime_event.h"
#include "core/status.h"
#include "core/transition.h"
#include "engine/write_hook.h"
#include "store/store.h"

namespace redrive::engine {

struct WebhookSubscriptions;  // engine/webhooks/subscriptions.h

struct TxEffects {
  // Queues that gained claimable (pending) jobs, and how many.
  std::map<std::string, long long> became_claimable;
  // Jobs claimed, by queue: a group committer's hand-over wakes no one for
  // the new jobs that claims run after them in the same transaction took
  // (group_committer.h).
  std::map<std::string, long long> claimed;
  // Queues whose claimability changed for another reason (resumed): wake all.
  std::map<std::string, bool> wake_all;
  // The earliest times written by the batch (services may need to run sooner).
  std::optional<Instant> earliest_scheduled;
  std::optional<Instant> earliest_lease_expiry;
  std::optional<Instant> earliest_deadline;
  // What the batch did to jobs, for the metrics counters (engine/metrics.h):
  // (queue, event, dead reason or "") → count. The events each outcome counts
  // are in core's outcome table (enqueued, claimed, completed, failed,
  // retry_scheduled, lease_expired, deadlettered, redriven); JobEventCounter
  // records them inside the transaction, and they are counted only once the
  // commit succeeded.
  std::map<std::tuple<std::string, std::string, std::string>, long long> job_events;
  // Per queue, how long the batch's claimed jobs had waited (from due to
  // claimed) and its completed attempts took (from claim to complete),
  // recorded by JobEventCounter beside the claimed and completed events: for
  // the metrics and, through the throughput sampler, the hourly totals.
  struct QueueTimes {
    std::chrono::microseconds waiting{0};
    std::chrono::microseconds processing{0};
  };
  std::map<std::string, QueueTimes> job_times;
  // The batch wrote webhook deliveries due now (wake the dispatcher).
  bool wrote_deliveries = false;
  // Webhook delivery attempts recorded, by outcome (delivered, failed,
  // gave_up), and webhooks that disabled themselves: for the metrics.
  std::map<std::string, long long> webhook_outcomes;
  long long webhooks_disabled = 0;
  // Schedule runs by what happened: fired (a job enqueued), missed (fire
  // times that passed while the schedule could not fire), skipped (the
  // previous job was still running): for the metrics.
  std::map<std::string, long long> schedule_runs;
  // Auto-redrive (services/autoredrive_runner.h): jobs it redrove by queue,
  // and its phase-changing decisions by outcome: for the metrics.
  std::map<std::string, long long> autoredrive_jobs;
  std::map<std::string, long long> autoredrive_decisions;
  // What live subscribers are told of the batch (engine/realtime/), in
  // write order; recorded only while the event hub has subscribers, and
  // published only once the commit succeeded.
  std::vector<RealtimeEvent> realtime_events;

  void Merge(const TxEffects& other);
};

struct TxContext {
  Instant now;
  Random& random;
  TxEffects effects;
  // Queue configs already read by this operation (a bulk enqueue reads its
  // queue once, not once per job).
  std::map<std::string, QueueConfig> queues;
  // The executor's hooks, called for every job and queue write.
  std::span<WriteHook* const> hooks;
  // Taken by the webhook outbox once per transaction (BeginTransaction):
  // the enabled webhooks, or null when there are none.
  std::shared_ptr<const WebhookSubscriptions> subscriptions;
  // The node running the transaction (the engine's node id; unset in tests
  // that build a context by hand): stamped on every history entry made below.
  std::optional<std::string> node_id;
  // The most queues the store may hold: an op that creates one passes it to
  // WriteTx::EnsureQueue (EngineOptions::max_queues).
  size_t max_queues = ServerLimits{}.max_queues;
  // The built-in completion webhook exists (the outbox's snapshot says so, or
  // this transaction made it): a job naming a completion_webhook needs it.
  bool completion_webhook_exists = false;
  // The ids of the jobs this op makes (MakeNewJob): ascending in the order
  // it makes them, as its inserts are.
  UuidV7Sequence job_ids;

  // Core's Apply and MakeNewJob at this transaction's `now` and randomness,
  // with the history entry naming `node_id`. The engine makes every change
  // and new job it writes through these two, so every history entry it
  // writes says which node wrote it.
  Result<Change> Apply(const Job& job, const Event& event);
  NewJob MakeNewJob(const NewJobParams& params, const QueueConfig& queue);

  // Records the effects of a job now being in state `job`.
  void Track(const Job& job);
  // Tells every hook that this request wrote `write` (see write_hook.h);
  // the first error fails the request. A job write then has its
  // consequences for jobs that depend on it (dependency_release.h): a
  // completion unblocks the dependents it satisfies, in this transaction.
  Status Wrote(store::WriteTx& tx, const JobWrite& write);
  Status Wrote(store::WriteTx& tx, const QueueWrite& write);
  Status Wrote(store::WriteTx& tx, const WorkerWrite& write);
  Status Wrote(store::WriteTx& tx, const ScheduleWrite& write);
  Status Wrote(store::WriteTx& tx, const WorkflowWrite& write);
  Status Wrote(store::WriteTx& tx, const AutoredriveWrite& write);
};

}  // namespace redrive::engine
