// What a live subscriber (GET /api/v1/events, the WebSocket /api/v1/ws) is
// told about a committed change: plain data, made by the engine from the
// same writes that feed the metrics and the webhooks, after their commit.
// The types and fields are Spooled's (its backend's `RealtimeEvent`); the
// JSON is wire/realtime_json.h's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/job.h"
#include "core/queue_scope.h"

namespace redrive {

enum class RealtimeEventType {
  kJobCreated,          // enqueue inserted the job
  kJobStatusChange,     // any write that moved a job from one status to another
  kJobCompleted,        // processing -> completed (after its status change)
  kJobFailed,           // an attempt failed or lost its lease (after its status change)
  kWorkerRegistered,    // a worker registered
  kWorkerDeregistered,  // a worker deregistered
};

// Spooled's wire name: "JobCreated", "JobStatusChange", ...
std::string_view RealtimeEventTypeName(RealtimeEventType type);

struct RealtimeEvent {
  RealtimeEventType type = RealtimeEventType::kJobCreated;
  Instant at{};            // the commit's `now`
  std::string job_id;      // job events
  std::string queue_name;  // job events; the worker's queue for worker events
  std::string worker_id;   // worker events
  // kJobStatusChange.
  JobStatus old_status = JobStatus::kPending;
  JobStatus new_status = JobStatus::kPending;
  int priority = 0;  // kJobCreated
  // kJobCompleted: how long the attempt ran, and the job's result (a
  // serialized JSON value; a payload, so never shown to viewers).
  long long duration_ms = 0;
  std::optional<std::string> result;
  // kJobFailed.
  std::string error;
  int retry_count = 0;
  bool will_retry = false;
};

// Which events one subscriber gets: all, one job's, one queue's; always
// only those of queues the caller's scope allows. Worker events carry no
// job, so a job filter drops them; a scoped caller sees only its queues'.
struct EventFilter {
  std::optional<std::string> job_id;
  std::optional<std::string> queue_name;
  QueueScope scope;

  bool Matches(const RealtimeEvent& event) const;
};

}  // namespace redrive
