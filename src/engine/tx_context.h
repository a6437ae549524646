// What one group-commit transaction needs besides the store: the batch's
// `now`, randomness, and a record of what the batch made due, so that after
// the commit the engine can wake long-poll waiters and background services.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/clock.h"
#include "core/job.h"
#include "core/queue.h"
#include "core/random.h"
#include "core/transition.h"

namespace redrive::engine {

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

  void Merge(const TxEffects& other);
  bool empty() const;
};

struct TxContext {
  Instant now;
  Random& random;
  TxEffects effects;
  // Queue configs already read by this operation (a bulk enqueue reads its
  // queue once, not once per job).
  std::map<std::string, QueueConfig> queues;

  // Records the effects of a job now being in state `job`.
  void Track(const Job& job);
  // Records the metrics events of a written change (see job_events).
  void CountEvents(const Change& change);
  void CountEvent(const std::string& queue, const char* event, std::string reason = "");
};

}  // namespace redrive::engine
