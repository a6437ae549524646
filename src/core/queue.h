// Queue configuration and worker registry entries: plain data.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/job.h"

namespace redrive {

// How long terminal jobs are kept before the retention sweep deletes them.
// nullopt = keep forever. Defaults: completed 7 days, cancelled 7 days, DLQ
// forever (an operator decides what to do with dead jobs).
struct RetentionPolicy {
  std::optional<std::chrono::seconds> completed{std::chrono::hours(24 * 7)};
  std::optional<std::chrono::seconds> deadletter;
  std::optional<std::chrono::seconds> cancelled{std::chrono::hours(24 * 7)};
  friend bool operator==(const RetentionPolicy&, const RetentionPolicy&) = default;
};

// A queue exists once a job is enqueued to it or it is configured.
struct QueueConfig {
  std::string queue_name;
  int max_retries = 3;        // default for jobs enqueued without max_retries
  int default_timeout = 300;  // seconds; default timeout_seconds
  bool enabled = true;        // a disabled queue refuses enqueue (VALIDATION? no: CONFLICT)
  bool paused = false;        // accepts jobs, hands none out
  std::optional<std::string> paused_reason;
  BackoffPolicy backoff;  // default for jobs enqueued without backoff
  int crash_limit = 3;    // default for jobs enqueued without crash_limit; 0: off
  int max_snoozes = 25;   // default for jobs enqueued without max_snoozes
  RetentionPolicy retention;
  Instant created_at{};
  Instant updated_at{};
  // When the last job that throttled redrives of this queue scheduled is
  // due: the next throttled redrive starts after it, so a queue's throttled
  // redrives share one rate (engine DlqRetry). Unset until the first one.
  std::optional<Instant> redrive_until;
  friend bool operator==(const QueueConfig&, const QueueConfig&) = default;
};

// Job counts of one queue (or of all queues) by status.
struct StatusCounts {
  long long pending = 0, scheduled = 0, processing = 0, completed = 0, deadletter = 0,
            cancelled = 0, quarantined = 0, blocked = 0;
  long long total() const {
    return pending + scheduled + processing + completed + deadletter + cancelled + quarantined +
           blocked;
  }
  long long& of(JobStatus s);
};

struct WorkerInfo {
  std::string id;
  std::string queue_name;
  std::string hostname;
  std::optional<std::string> worker_type;
  int max_concurrency = 1;
  std::string metadata_json = "{}";
  std::optional<std::string> version;
  std::string status = "healthy";  // as last reported: healthy, degraded, draining, offline
  int current_jobs = 0;
  Instant registered_at{};
  Instant last_heartbeat_at{};
  std::optional<Instant> deregistered_at;
  friend bool operator==(const WorkerInfo&, const WorkerInfo&) = default;
};

// "offline" when silent for 3 heartbeat intervals or after
// deregister, else the status the worker reported.
std::string EffectiveWorkerStatus(const WorkerInfo& w, Instant now);

}  // namespace redrive
