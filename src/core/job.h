// The job model: what a job is, its statuses, and its retry settings. Plain
// data; behaviour lives in transition.h and retry_policy.h.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace redrive {

// The lifecycle of a job.
//   pending    — claimable now (scheduled_at <= now).
//   scheduled  — claimable at scheduled_at: delayed jobs and retries waiting
//                out their backoff. Promoted to pending when due.
//   processing — held by one worker under a lease (lease_id, lease_expires_at,
//                assigned_worker_id are set exactly in this status).
//   completed  — terminal, success.
//   deadletter — the DLQ: failed for good, kept whole until retried or purged.
//   cancelled  — terminal, cancelled by an operator (can be retried).
//   quarantined — terminal until released: its attempts crashed (lost their
//                lease) crash_limit times; kept apart from the DLQ so a poison
//                payload stops taking workers down (reason crash_limit).
//   blocked    — waits for its dependencies (core/workflow.h): never claimed;
//                unblocked to pending in the transaction that completes the
//                dependency satisfying it.
enum class JobStatus {
  kPending,
  kScheduled,
  kProcessing,
  kCompleted,
  kDeadletter,
  kCancelled,
  kQuarantined,
  kBlocked
};
inline constexpr JobStatus kAllStatuses[] = {
    JobStatus::kPending,    JobStatus::kScheduled, JobStatus::kProcessing,  JobStatus::kCompleted,
    JobStatus::kDeadletter, JobStatus::kCancelled, JobStatus::kQuarantined, JobStatus::kBlocked};

const char* JobStatusName(JobStatus s);  // "pending", ...
std::optional<JobStatus> ParseJobStatus(std::string_view s);
// Every status name in kAllStatuses order, comma-separated (error messages).
std::string JobStatusNames();
bool IsTerminal(JobStatus s);  // completed, deadletter, cancelled, quarantined

// Why a job is in the DLQ.
enum class DeadReason { kNone, kMaxRetriesExceeded, kLeaseExpired, kNonRetryable, kExpired };
// Every reason a dead job can have (all but kNone).
inline constexpr DeadReason kAllDeadReasons[] = {DeadReason::kMaxRetriesExceeded,
                                                 DeadReason::kLeaseExpired,
                                                 DeadReason::kNonRetryable, DeadReason::kExpired};
const char* DeadReasonName(DeadReason r);  // "" for kNone, "max_retries_exceeded", ...
std::optional<DeadReason> ParseDeadReason(std::string_view s);  // not for ""
// Every name in kAllDeadReasons order, comma-separated (error messages).
std::string DeadReasonNames();

// delay(n) = min(base · 2^(n−1), max) + uniform(0, jitter), n ≥ 1.
struct BackoffPolicy {
  std::chrono::milliseconds base{1000};
  std::chrono::milliseconds max{60000};
  std::chrono::milliseconds jitter{500};
  friend bool operator==(const BackoffPolicy&, const BackoffPolicy&) = default;
};

using Tags = std::map<std::string, std::string>;

struct Job {
  std::string id;  // UUIDv7
  std::string queue_name;
  JobStatus status = JobStatus::kPending;
  std::string payload;                // serialized JSON value
  std::optional<std::string> result;  // serialized JSON value, set on completion
  int priority = 0;                   // -100..100, higher first
  int retry_count = 0;                // failures charged so far
  int max_retries = 3;                // runs at most max_retries + 1 times
  int timeout_seconds = 300;          // per attempt
  BackoffPolicy backoff;              // stored at enqueue
  std::optional<std::string> last_error;
  // The class of last_error (ErrorFingerprint, core/error_fingerprint.h),
  // set by Apply when the job dead-letters or is quarantined, cleared when it
  // leaves; the DLQ groups and selects by it. A job stored before it existed
  // has none until the fingerprint backfill fills it in.
  std::optional<std::string> error_fingerprint;
  DeadReason dead_reason = DeadReason::kNone;
  Tags tags;
  std::optional<std::string> idempotency_key;
  // Spooled's completion_webhook: a URL POSTed, through the outbox and
  // signed by the built-in completion webhook (core/webhook.h), when the job
  // finishes (completed, dead-lettered or cancelled).
  std::optional<std::string> completion_webhook;

  Instant created_at{};
  Instant updated_at{};
  Instant scheduled_at{};               // when it is (or was) due; = created_at if not delayed
  std::optional<Instant> started_at;    // start of the current/last attempt
  std::optional<Instant> completed_at;  // set when it reaches a terminal status
  std::optional<Instant> expires_at;    // deadline: never claimed at or after it
  std::optional<Instant> deadlettered_at;

  // Present exactly while status == processing.
  std::optional<std::string> assigned_worker_id;
  std::optional<std::string> lease_id;
  std::optional<Instant> lease_expires_at;

  int attempts = 0;        // total claims so far
  int lease_expiries = 0;  // attempts that ended by lease loss or timeout

  // Attempts that crashed (lost their lease: the worker died, hung or went
  // offline) since enqueue or the last release from quarantine; an explicit
  // fail is not a crash. Reaching crash_limit (> 0) quarantines the job.
  int crash_count = 0;
  int crash_limit = 3;  // 0: never quarantined (kDefaultCrashLimit)
  // Times a worker snoozed the job ("not now"); refused past max_snoozes.
  int snooze_count = 0;
  int max_snoozes = 25;  // kDefaultMaxSnoozes

  friend bool operator==(const Job&, const Job&) = default;
};

// One entry of a job's history ("every state change writes one").
// event_type is one of: created, processing, completed, retry_scheduled,
// lease_expired, deadlettered, retried, cancelled, payload_updated, released,
// quarantined, quarantine_released, snoozed, unblocked, blocked, moved.
struct HistoryEntry {
  std::string id;  // UUIDv7: core's NewHistoryEntry, or derived by the store (store.h)
  std::string job_id;
  std::string event_type;
  std::optional<std::string> worker_id;
  std::string details_json = "{}";  // a serialized JSON object
  Instant created_at{};
  // The node that made the change (EngineOptions::node_id), stamped by the
  // engine's write context (engine/tx_context.h); unset for entries written
  // by no node (PostgreSQL's SQL function redrive.enqueue) or before nodes
  // were recorded.
  std::optional<std::string> node_id;
  friend bool operator==(const HistoryEntry&, const HistoryEntry&) = default;
};

// One class of failure in the dead-letter queue (GET /jobs/dlq/summary): the
// dead jobs of one queue with the same dead_reason and the same error
// fingerprint (core/error_fingerprint.h). Queue and dead_reason stay keys of
// their own: the same error on two queues is two owners' problem, and a
// deadline is not a crash even when the text matches.
// kDeadLetterErrorChars bounds what a class shows of its example (`error`).
inline constexpr int kDeadLetterErrorChars = 200;
struct DeadLetterGroup {
  std::string queue_name;
  DeadReason dead_reason = DeadReason::kNone;
  // nullopt when the jobs have no error (or are not fingerprinted yet).
  std::optional<std::string> fingerprint;
  // NormalizeError of the example: the class's message with its variable
  // parts as placeholders; filled in by the engine, not the store.
  std::optional<std::string> normalized_error;
  // An example: one job's last_error of the class (the smallest), cut to
  // kDeadLetterErrorChars; nullopt when the jobs have none.
  std::optional<std::string> error;
  long long count = 0;
  Instant oldest_deadlettered_at{};  // first seen
  Instant newest_deadlettered_at{};  // last seen
  friend bool operator==(const DeadLetterGroup&, const DeadLetterGroup&) = default;
};

}  // namespace redrive
