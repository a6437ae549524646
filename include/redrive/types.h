// The request and response types of the Redrive C++ SDK (redrive::client).
//
// Reads reuse the server's own model (core/job.h, core/queue.h): a fetched
// Job is exactly the server's Job, with payload and result as serialized JSON
// text (PayloadOf/ResultOf parse them). Everything a caller *sends* or a
// worker *receives* to act on carries boost::json::value.
//
// Optional request fields are std::optional: unset means "not sent", so the
// server's default (often the queue's) applies.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/audit.h"
#include "core/autoredrive.h"
#include "core/clock.h"
#include "core/job.h"
#include "core/operation.h"
#include "core/queue.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/workflow.h"

namespace redrive::sdk {

using redrive::AuditEntry;
using redrive::AutoredriveDecisionKind;
using redrive::AutoredrivePhase;
using redrive::AutoredrivePolicy;
using redrive::AutoredriveState;
using redrive::BackoffPolicy;
using redrive::DeadLetterGroup;
using redrive::DeadReason;
using redrive::DependencyLink;
using redrive::DependencyMode;
using redrive::ErrorCode;
using redrive::HistoryEntry;
using redrive::Instant;
using redrive::Job;
using redrive::JobDependency;
using redrive::JobStatus;
using redrive::Operation;
using redrive::OperationAction;
using redrive::OperationState;
using redrive::QueueConfig;
using redrive::Readiness;
using redrive::Result;
using redrive::Schedule;
using redrive::ScheduleRun;
using redrive::Status;
using redrive::StatusCounts;
using redrive::Tags;
using redrive::WorkerInfo;
using redrive::WorkflowStatus;

// The parsed payload / result of a fetched Job (null when absent).
boost::json::value PayloadOf(const Job& job);
boost::json::value ResultOf(const Job& job);

// ---- Producer ---------------------------------------------------------------

struct EnqueueRequest {
  std::string queue_name;
  boost::json::value payload;  // any JSON except null
  std::optional<int> priority;
  std::optional<int> max_retries;
  std::optional<int> timeout_seconds;
  std::optional<Instant> scheduled_at;
  std::optional<Instant> expires_at;
  Tags tags;  // sent only when non-empty
  std::optional<std::string> idempotency_key;
  std::optional<BackoffPolicy> backoff;
  std::optional<int> crash_limit;  // lost leases before quarantine; 0: never
  std::optional<int> max_snoozes;
  // Spooled's: POSTed (signed by the server's built-in completion webhook)
  // when the job ends: completed, dead-lettered or cancelled.
  std::optional<std::string> completion_webhook;
  // Spooled's: the job waits (blocked) until this job completes.
  std::optional<std::string> parent_job_id;
};

struct EnqueueResult {
  std::string id;
  bool created = true;  // false: an existing job had the idempotency_key
};

// One item of a bulk enqueue (every EnqueueRequest field but queue_name).
struct BulkJob {
  boost::json::value payload;
  std::optional<int> priority;
  std::optional<int> max_retries;
  std::optional<int> timeout_seconds;
  std::optional<Instant> scheduled_at;
  std::optional<Instant> expires_at;
  Tags tags;
  std::optional<std::string> idempotency_key;
  std::optional<BackoffPolicy> backoff;
  std::optional<int> crash_limit;
  std::optional<int> max_snoozes;
  std::optional<std::string> completion_webhook;  // as EnqueueRequest's
};

struct BulkEnqueueRequest {
  std::string queue_name;
  std::vector<BulkJob> jobs;  // at most 1000
  std::optional<int> default_priority;
  std::optional<int> default_max_retries;
  std::optional<int> default_timeout_seconds;
};

struct BulkSucceeded {
  int index = 0;
  std::string job_id;
  bool created = true;
};
struct BulkFailed {
  int index = 0;
  Status error;  // code, message and field of the refused item
};
struct BulkEnqueueResult {
  std::vector<BulkSucceeded> succeeded;
  std::vector<BulkFailed> failed;
  int total = 0;
};

// ---- Operator: jobs ----------------------------------------------------------

struct ListJobsFilter {
  std::optional<std::string> queue_name;
  std::optional<JobStatus> status;
  std::optional<std::string> tag;  // "key=value" or "key"
  // One error class of dead or quarantined jobs (their error_fingerprint).
  std::optional<std::string> fingerprint;
  std::optional<int> limit;  // 1..100, server default 50
  std::optional<int> offset;
};

// GET /audit: unset fields do not filter.
struct AuditQuery {
  std::optional<std::string> actor;   // a key's name or label ("oncall", "admin#1a2b3c4d")
  std::optional<std::string> action;  // "dlq.retry", "queue.pause", ...
  std::optional<std::string> target;  // "job:ID", "queue:NAME", "webhook:ID"
  std::optional<Instant> since, until;
  std::optional<int> limit;           // 1..200 (server default 50)
  std::optional<std::string> cursor;  // a previous page's next_cursor
};

struct AuditPage {
  std::vector<AuditEntry> entries;
  std::optional<std::string> next_cursor;  // unset: no further page
};

// A stored API key (GET/POST /api/v1/api-keys). `secret` is set only in the
// answer to CreateApiKey: the server shows it once.
struct ApiKeyInfo {
  std::string id;
  std::string name;
  std::string role;                 // "admin", "worker", "viewer"
  std::vector<std::string> queues;  // empty: every queue
  std::string key_prefix;           // the secret's first characters
  bool is_active = true;            // false: revoked
  std::optional<Instant> created_at, last_used, expires_at;
  std::optional<std::string> secret;
};

struct CreateApiKeyRequest {
  std::string name;
  std::optional<std::string> role;  // server default: worker if queues, else admin
  std::vector<std::string> queues;
  std::optional<Instant> expires_at;
};

// The token exchange (/api/v1/auth): an API key for a short-lived access
// token (a JWT that works as the Bearer wherever the key does, e.g. as
// ClientOptions::api_key) and a refresh token that buys the next pair once.
struct TokenPair {
  std::string access_token;
  std::string refresh_token;
  std::string token_type;  // "Bearer"
  std::chrono::seconds expires_in{0};
  std::chrono::seconds refresh_expires_in{0};
};

// POST /auth/validate: `valid` with the token's claims, or not, with why.
struct TokenValidation {
  bool valid = false;
  boost::json::object claims;  // empty when not valid
  std::optional<std::string> error;
};

// GET /auth/me: who the client's credential is.
struct Identity {
  std::string api_key_id;
  std::string name;
  std::string role;                 // "admin", "worker", "viewer"
  std::string credential;           // "api_key", "access_token", or "none" (server without keys)
  std::vector<std::string> queues;  // empty: every queue
  std::optional<Instant> issued_at, expires_at;  // the access token's; unset with a key
};

struct DlqFilter {
  std::optional<std::string> queue_name;
  std::optional<std::string> tag;
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> error_prefix;  // last_error starts with it (exact)
  // An error class: DeadLetterGroup::fingerprint (16 lowercase hex characters).
  std::optional<std::string> fingerprint;
  std::optional<int> limit;
  std::optional<int> offset;
};

// GET /jobs/dlq/summary: the DLQ grouped by (queue, dead reason, error
// fingerprint).
struct DlqSummaryFilter {
  std::optional<std::string> queue_name;
  std::optional<std::string> tag;
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> error_prefix;
  std::optional<std::string> fingerprint;  // one error class
  std::optional<int> limit;                // groups, 1..100, server default 20
};

// An item of GET /jobs/status.
struct JobStatusEntry {
  std::string id;
  JobStatus status = JobStatus::kPending;
  std::string queue_name;
  int retry_count = 0;
  Instant created_at{};
  std::optional<Instant> completed_at;
};

struct PriorityChange {
  std::string job_id;
  int old_priority = 0;
  int new_priority = 0;
};

struct DlqRetryRequest {
  std::vector<std::string> job_ids;  // when non-empty, the filters are ignored
  std::optional<std::string> queue_name;
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> tag;
  std::optional<std::string> error_prefix;  // last_error starts with it (exact)
  std::optional<std::string> fingerprint;   // one error class (DeadLetterGroup::fingerprint)
  std::optional<int> limit;                 // 1..1000; also caps job_ids
  bool dry_run = false;
  std::optional<double> rate_per_second;
  // "reset" (the server's default), "keep" or "extend:N".
  std::optional<std::string> budget;
  // Redrive into this queue instead of each job's own (created if new).
  std::optional<std::string> target_queue;
};

// POST /jobs/quarantine/release: job_ids, or a filter (queue_name and/or
// tag); the server refuses an empty selector.
struct ReleaseRequest {
  std::vector<std::string> job_ids;
  std::optional<std::string> queue_name;
  std::optional<std::string> tag;
  std::optional<std::string> fingerprint;  // one error class (a job's error_fingerprint)
  std::optional<int> limit;                // 1..1000
  bool dry_run = false;
  std::optional<std::string> budget;        // as DlqRetryRequest::budget
  std::optional<std::string> target_queue;  // as DlqRetryRequest::target_queue
};

struct ReleaseResult {
  bool dry_run = false;
  int selected_count = 0;  // quarantined jobs selected (dry run: would release)
  std::vector<std::string> released_ids;
};

struct DlqRetryResult {
  bool dry_run = false;
  int matched_count = 0;   // dead jobs the selection matches, whatever the limit
  int selected_count = 0;  // of them, the ones this call retried (dry run: would retry)
  int retried_count = 0;   // real runs
  std::vector<std::string> retried_jobs;
  // A throttled redrive (rate_per_second): when its first and last job are due.
  std::optional<Instant> first_due_at, last_due_at;
};

struct DlqPurgeRequest {
  bool confirm = false;  // must be true (dry runs too), or the server answers BAD_REQUEST
  std::optional<std::string> queue_name;
  std::optional<std::string> error_prefix;  // last_error starts with it (exact)
  std::optional<std::string> fingerprint;   // one error class (DeadLetterGroup::fingerprint)
  std::optional<Instant> older_than;
  std::optional<int> limit;  // 1..10000
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> tag;  // "key=value" or "key"
  // Count what the purge would delete (bounded by `limit`); delete nothing.
  bool dry_run = false;
};

// ---- Operator: bulk operations ---------------------------------------------

// POST /operations: `action` over every job `selector` matches, run by the
// server in the background in batches (GetOperation reports its progress).
struct OperationRequest {
  std::string action;  // "retry", "purge", "cancel", "release" or "move"
  // The DLQ selector's fields: job_ids, queue_name, dead_reason, tag,
  // error_prefix, fingerprint, dead_before, and status (to narrow the
  // action's statuses).
  // Never empty: the server refuses an operation over every job.
  boost::json::object selector;
  std::optional<double> rate_per_second;
  std::optional<std::string> budget;  // retry, release: as DlqRetryRequest::budget
  // retry, release: optional; move: required (the queue the jobs go to, not
  // the selector's queue_name).
  std::optional<std::string> target_queue;
  std::optional<std::string> reason;
};

// A dry run of an OperationRequest: what it would handle now.
struct OperationPreview {
  long long matched_count = 0;
  std::vector<Job> sample;  // the first 20, in the order it would go
};

// ---- Operator: auto-redrive ------------------------------------------------

// GET /queues/{name}/autoredrive: a queue's policy, its live state (the
// state's batch_job_ids are not sent: only their count, in batch_redriven)
// and how many dead jobs it may revive now.
struct Autoredrive {
  AutoredrivePolicy policy;
  AutoredriveState state;
  long long batch_redriven = 0;
  long long eligible_count = 0;
};

// ---- Operator: queues ------------------------------------------------------

// A GET /queues item.
struct QueueView {
  QueueConfig config;
  StatusCounts counts;
  std::optional<Instant> oldest_deadletter_at;
};

// GET /queues/{name}/stats.
struct QueueStats {
  std::string queue_name;
  StatusCounts counts;
  std::optional<Instant> oldest_deadletter_at;
};

// PUT /queues/{name}/config: only the fields set change.
struct QueueConfigUpdate {
  std::optional<int> max_retries;
  std::optional<int> default_timeout;
  std::optional<bool> enabled;
  std::optional<BackoffPolicy> backoff;  // replaces the whole policy
  std::optional<int> crash_limit;
  std::optional<int> max_snoozes;
  // Retention: outer nullopt = unchanged; inner nullopt = keep forever.
  std::optional<std::optional<std::chrono::seconds>> retention_completed;
  std::optional<std::optional<std::chrono::seconds>> retention_deadletter;
  std::optional<std::optional<std::chrono::seconds>> retention_cancelled;
};

// ---- Workers -----------------------------------------------------------------

struct RegisterWorkerRequest {
  std::string queue_name;
  std::string hostname;
  std::optional<std::string> worker_type;
  std::optional<int> max_concurrency;
  std::optional<boost::json::object> metadata;
  std::optional<std::string> version;
  std::optional<std::string> worker_id;  // given: an upsert; else generated
};

struct WorkerRegistration {
  std::string id;
  std::string queue_name;
  int lease_duration_secs = 30;
  int heartbeat_interval_secs = 10;
};

struct WorkerHeartbeatRequest {
  int current_jobs = 0;
  std::optional<std::string> status;  // healthy, degraded, draining
  std::optional<boost::json::object> metadata;
};

// A job handed out by POST /jobs/claim.
struct ClaimedJob {
  std::string id;
  std::string queue_name;
  boost::json::value payload;
  int retry_count = 0;
  int max_retries = 0;
  int timeout_seconds = 0;
  std::string lease_id;
  Instant lease_expires_at{};
  int priority = 0;
  Tags tags;
  int attempts = 0;
};

// A completion (no error) or a failure (error set) of a held job.
struct Ack {
  std::string id;
  std::string lease_id;
  std::optional<boost::json::value> result;  // completions
  std::optional<std::string> error;          // failures
  bool no_retry = false;
  std::optional<std::chrono::milliseconds> retry_after;
  // Failures: about the attempt, as FailOptions::details (≤ 1 KiB serialized).
  std::optional<boost::json::object> details;

  static Ack Complete(std::string id, std::string lease_id, boost::json::value result = nullptr);
  static Ack Fail(std::string id, std::string lease_id, std::string error, bool no_retry = false,
                  std::optional<std::chrono::milliseconds> retry_after = std::nullopt,
                  std::optional<boost::json::object> details = std::nullopt);
};

// One ack's answer. A recorded failure (success, will_retry set) also says
// what POST /jobs/{id}/fail would have answered: retry_count, and
// scheduled_at (a retry) or dead_reason (dead-lettered), with the same
// meanings as FailResult's.
struct AckResult {
  std::string id;
  bool success = false;
  std::optional<JobStatus> status;
  std::optional<bool> will_retry;              // failures
  std::optional<int> retry_count;              // failures: after this one
  std::optional<Instant> scheduled_at;         // failures that will retry: when
  DeadReason dead_reason = DeadReason::kNone;  // failures that dead-lettered: why
  Status error;  // !success: LEASE_EXPIRED, CONFLICT, NOT_FOUND or ACCESS_DENIED
};

struct ClaimRequest {
  std::string queue_name;
  std::string worker_id;
  std::optional<int> limit;                       // 1..100, server default 1
  std::optional<int> lease_duration_secs;         // 5..3600, server default 30
  std::optional<std::chrono::milliseconds> wait;  // long-poll, ≤ 30 s
  std::optional<std::vector<Ack>> acks;           // applied before claiming
};

struct ClaimResult {
  std::vector<ClaimedJob> jobs;
  std::vector<AckResult> results;  // one per ack, when acks were sent
};

struct FailOptions {
  bool no_retry = false;                                 // straight to the DLQ
  std::optional<std::chrono::milliseconds> retry_after;  // instead of the backoff
  // About the attempt (≤ 1 KiB serialized), kept in its history entry as
  // "attempt": e.g. {"exit_code": 1}. A Redrive extension.
  std::optional<boost::json::object> details;
};

struct FailResult {
  bool will_retry = false;
  JobStatus status = JobStatus::kScheduled;  // the job's new status
  int retry_count = 0;
  std::optional<Instant> scheduled_at;
  DeadReason dead_reason = DeadReason::kNone;
};

// ---- Schedules (cron jobs) --------------------------------------------------

// The fields of POST /schedules (name, cron_expression and queue_name
// required) and PUT /schedules/{id} (any): only the set ones are sent.
struct ScheduleSpec {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> cron_expression;  // 5 or 6 fields, or a macro
  std::optional<std::string> timezone;         // IANA, e.g. "Europe/Berlin"
  std::optional<std::string> queue_name;
  std::optional<boost::json::value> payload_template;
  std::optional<int> priority;
  std::optional<int> max_retries;
  std::optional<int> timeout_seconds;
  std::optional<Tags> tags;
  std::optional<boost::json::object> metadata;
  std::optional<bool> is_active;
  std::optional<std::string> missed_run_policy;  // skip | run_once | backfill
  std::optional<std::string> overlap_policy;     // allow | skip_if_running | cancel_previous
  std::optional<int> backfill_limit;
};

struct ListSchedulesFilter {
  std::optional<bool> is_active;
  std::optional<std::string> queue_name;
  std::optional<int> limit;  // 1..500 (server default 100)
  std::optional<int> offset;
};

// POST /schedules/{id}/trigger.
struct ScheduleTrigger {
  std::string job_id;
  Instant triggered_at{};
};

// One entry of GET /schedules/{id}/history.
struct ScheduleHistoryItem {
  ScheduleRun run;
  std::string status;                     // pending, running, completed, failed, cancelled, skipped
  std::optional<std::string> job_status;  // the job's status now, when it still exists
};

// ---- Workflows (jobs created together, each waiting for others) -----------

// One job of CreateWorkflow: its key in the workflow, the keys of the jobs it
// waits for, and the fields of an enqueue but idempotency_key.
struct WorkflowJobRequest {
  std::string key;  // 1..100 of [A-Za-z0-9_-], unique in the workflow
  std::string queue_name;
  boost::json::value payload;                     // any JSON except null
  std::vector<std::string> depends_on;            // keys of other jobs of the workflow
  std::optional<DependencyMode> dependency_mode;  // server default: all
  std::optional<int> priority;
  std::optional<int> max_retries;
  std::optional<int> timeout_seconds;
  std::optional<Instant> scheduled_at;
  std::optional<Instant> expires_at;
  Tags tags;  // sent only when non-empty
  std::optional<BackoffPolicy> backoff;
  std::optional<int> crash_limit;
  std::optional<int> max_snoozes;
  std::optional<std::string> completion_webhook;  // as EnqueueRequest's
};

// POST /workflows: created whole or not at all. A cycle, an unknown key or a
// repeated one is VALIDATION_ERROR naming the field ("jobs[0].depends_on")
// and, in its message, the key.
struct CreateWorkflowRequest {
  std::string name;  // 1..255 bytes
  std::optional<std::string> description;
  std::optional<boost::json::object> metadata;
  std::vector<WorkflowJobRequest> jobs;  // 1..10,000
};

// A workflow as the server reads it: what was given at creation, and what
// its jobs' statuses say (status and counts are derived, never stored).
struct Workflow {
  std::string id;
  std::string name;
  std::optional<std::string> description;
  WorkflowStatus status = WorkflowStatus::kPending;
  StatusCounts counts;  // its jobs by status
  long long total_jobs = 0;
  long long completed_jobs = 0;
  long long failed_jobs = 0;  // dead-lettered and quarantined
  double progress_percent = 0;
  Instant created_at{};
  std::optional<Instant> started_at;    // the first attempt of one of its jobs
  std::optional<Instant> completed_at;  // once its status is final
  boost::json::object metadata;
};

// A job's id by its key in the workflow's definition.
struct WorkflowJobId {
  std::string key;
  std::string job_id;
};

struct CreatedWorkflow {
  std::string workflow_id;
  std::vector<WorkflowJobId> job_ids;  // in definition order
  Workflow workflow;
};

struct ListWorkflowsFilter {
  std::optional<WorkflowStatus> status;
  std::optional<int> limit;  // 1..100, server default 50
  std::optional<int> offset;
};

// A job of a workflow (GET /workflows/{id}/jobs): the job and its place in
// the graph. The job's payload and result are absent ("null") for viewers.
struct WorkflowJob {
  Job job;
  std::string workflow_id;
  std::string key;
  int position = 0;                     // index in the definition's jobs
  std::vector<std::string> depends_on;  // ids of the jobs it waits for
  DependencyMode dependency_mode = DependencyMode::kAll;
};

// An item of GET /workflows/{id}/jobs/status.
struct WorkflowJobStatus {
  std::string job_id;
  std::string key;
  JobStatus status = JobStatus::kPending;
};

// Pages of a workflow's jobs, in definition order.
struct WorkflowJobsPage {
  std::optional<int> limit;  // 1..1000, server default 1000
  std::optional<int> offset;
};

// GET /jobs/{id}/dependencies: what a job waits for and what waits for it.
struct JobDependencyInfo {
  std::string job_id;
  JobStatus status = JobStatus::kPending;
  DependencyMode dependency_mode = DependencyMode::kAll;  // kAll without dependencies
  bool dependencies_met = false;
  Readiness readiness = Readiness::kReady;
  std::vector<DependencyLink> dependencies;  // each ordered by job id
  std::vector<DependencyLink> dependents;    // at most 1000
};

// POST /jobs/{id}/dependencies.
struct AddDependenciesResult {
  int added = 0;  // new edges; an existing one is kept
  bool dependencies_met = false;
  JobStatus status = JobStatus::kPending;  // the job's, e.g. blocked now
  std::vector<JobDependency> dependencies;
};

struct Health {
  std::string status;   // "healthy", or "degraded" while the store is not ready
  std::string version;  // the server's
};

}  // namespace redrive::sdk
