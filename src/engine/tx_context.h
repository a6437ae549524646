// What one group-commit transaction needs besides the store: the batch's
// `now`, randomness, and a record of what the batch made due, so that after
// the commit the engine can wake long-poll waiters and background services.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/clock.h"
#include "core/job.h"
#include "core/outcome.h"
#include "core/queue.h"
#include "core/random.h"
#include "core/transition.h"
#include "core/webhook_event.h"

namespace redrive::engine {

struct WebhookSubscriptions;

struct TxEffects {
  // Queues that gained claimable (pending) jobs, and how many.
  std::map<std::string, long long> became_claimable;
  // Queues whose claimability changed for another reason (resumed): wake all.
  std::map<std::string, bool> wake_all;
  // The earliest times written by the batch (services may need to run sooner).
  std::optional<Instant> earliest_scheduled;
  std::optional<Instant> earliest_lease_expiry;
  std::optional<Instant> earliest_deadline;
  // What the batch did to jobs, for the metrics counters (engine/metrics.h):
  // (queue, event, dead reason or "") → count. The events each outcome counts
  // are in core's outcome table (enqueued, claimed, completed, failed,
  // retry_scheduled, lease_expired, deadlettered, redriven). Recorded inside
  // the transaction, counted only once the commit succeeded.
  std::map<std::tuple<std::string, std::string, std::string>, long long> job_events;
  // The batch wrote webhook deliveries due now (wake the dispatcher).
  bool wrote_deliveries = false;
  // Webhook delivery attempts recorded, by outcome (delivered, failed,
  // gave_up), and webhooks that disabled themselves: for the metrics.
  std::map<std::string, long long> webhook_outcomes;
  long long webhooks_disabled = 0;

  void Merge(const TxEffects& other);
};

struct TxContext {
  Instant now;
  Random& random;
  TxEffects effects;
  // Queue configs already read by this operation (a bulk enqueue reads its
  // queue once, not once per job).
  std::map<std::string, QueueConfig> queues;
  // The webhook subscriptions of this batch; null when no webhook is
  // enabled (the common case: then no event costs more than this test).
  const WebhookSubscriptions* webhooks = nullptr;
  // Events of this request that some webhook wants. The committer writes
  // their delivery rows (the outbox) before releasing the request's
  // savepoint, so a request that fails or rolls back leaves none.
  std::vector<WebhookEvent> webhook_events;

  // Records the effects of a job now being in state `job`.
  void Track(const Job& job);
  // Records the metric events (see job_events) and the webhook events of a
  // write with `outcome` leaving the job as `job`, as core's outcome table
  // says; `event` is what Apply() was given (null for an enqueue).
  void CountEvents(Outcome outcome, const Job& job, const Event* event);
  // A queue was paused or resumed.
  void QueueEvent(QueueOutcome outcome, const std::string& queue,
                  const std::optional<std::string>& reason);
};

}  // namespace redrive::engine
