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
  // (queue, event, dead reason or "") → count. Events: enqueued, claimed,
  // completed, failed (an attempt that failed or lost its lease),
  // retry_scheduled, lease_expired, deadlettered, redriven. Recorded inside
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
  // Records the metrics events of a written change (see job_events) and
  // the webhook events it causes; `event` is what Apply() was given.
  void CountEvents(const Change& change, const Event& event);
  // The same for a job just inserted by enqueue.
  void CountEnqueued(const Job& job);
  // A queue was paused or resumed: "queue.paused" / "queue.resumed".
  void QueueEvent(const char* event, const std::string& queue,
                  const std::optional<std::string>& reason);
  void CountEvent(const std::string& queue, const char* event, std::string reason = "");

 private:
  void WebhookJobEvent(const char* event, const Job& job, const JobEventExtras& extras = {});
  void WebhookEvents(const Change& change, const Event& event);
};

}  // namespace redrive::engine
