// A new job as enqueue creates it: the producer's request, completed with
// the queue's defaults, in its first status, with its "created" history
// entry. Pure: the caller passes `now` and the randomness for the ids.
//
// This is not an event of Apply (transition.h): Apply changes a job that
// exists; here there is no "before" to guard, and whether the job is
// written at all depends on the store (an idempotency key already taken,
// a queue that is disabled), which the engine checks first.
#pragma once

#include <optional>
#include <string>

#include "core/clock.h"
#include "core/ids.h"
#include "core/job.h"
#include "core/queue.h"
#include "core/random.h"

namespace redrive {

// What a producer asks for (POST /jobs). Unset fields take the queue's defaults.
struct NewJobParams {
  std::string queue_name;
  std::string payload_json;
  std::optional<int> priority;
  std::optional<int> max_retries;
  std::optional<int> timeout_seconds;
  std::optional<Instant> scheduled_at;
  std::optional<Instant> expires_at;
  Tags tags;
  std::optional<std::string> idempotency_key;
  std::optional<BackoffPolicy> backoff;
  std::optional<int> crash_limit;  // 0: never quarantined
  std::optional<int> max_snoozes;
  std::optional<std::string> completion_webhook;  // an absolute http(s) URL
};

struct NewJob {
  Job job;
  // event_type "created", details {"queue_name"[, "scheduled_at"]}, built by
  // CreatedHistory (transition.h), which like every history entry gets its id
  // from NewHistoryEntry.
  HistoryEntry created;
};

// The job `p` describes in `queue` at `now`: pending, or scheduled when
// scheduled_at is after `now`; its id the next of `job_ids` (the jobs one op
// makes ascend in the order it makes them), its entry's a UUIDv7, both drawn
// from `random`.
// REQUIRES: p.queue_name == queue.queue_name; p is valid (api/ checks ranges;
// the engine checks that expires_at is after `now` and the queue is enabled).
NewJob MakeNewJob(const NewJobParams& p, const QueueConfig& queue, Instant now, Random& random,
                  UuidV7Sequence& job_ids);

}  // namespace redrive
