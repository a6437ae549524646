// Parameters and results of the engine's operations: the contract's requests
// after decoding and validation (api/) and before encoding (wire/).
#pragma once

#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/autoredrive.h"
#include "core/job.h"
#include "core/new_job.h"
#include "core/operation.h"
#include "core/queue.h"
#include "core/queue_scope.h"
#include "core/retry_budget.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/throughput.h"
#include "core/webhook.h"
#include "core/workflow.h"

namespace redrive::engine {

// POST /jobs. Unset fields take the queue's defaults (core/new_job.h).
using EnqueueParams = NewJobParams;
struct EnqueueResult {
  std::string id;
  bool created = true;
};

// POST /jobs/bulk: items already validated; invalid ones never reach the engine.
struct BulkEnqueueParams {
  std::vector<EnqueueParams> jobs;  // each with queue_name set
};
struct BulkItemResult {
  size_t index = 0;  // index in BulkEnqueueParams::jobs
  std::string job_id;
  bool created = true;
  Status error;  // non-OK: this item was refused (e.g. expires_at already passed)
};

// One completion (no error) or failure (error set) carried by POST /jobs/ack or claim's acks.
struct Ack {
  std::string job_id;
  std::string lease_id;
  std::optional<std::string> result_json;
  std::optional<std::string> error;
  bool no_retry = false;
  std::optional<std::chrono::milliseconds> retry_after;
  std::optional<std::string> details_json;  // a failure's: as FailParams::details_json
};

// What a failure did to its job: the answer of POST /jobs/{id}/fail and of a
// failure ack alike, both made by ops::FailOutcomeOf from the job after it.
struct FailOutcome {
  JobStatus status = JobStatus::kScheduled;    // the job's new status
  bool will_retry = false;                     // status is not deadletter
  int retry_count = 0;                         // after the failure
  std::optional<Instant> scheduled_at;         // when will_retry: when the retry is due
  DeadReason dead_reason = DeadReason::kNone;  // when dead-lettered: why
};

struct AckItemResult {
  std::string job_id;
  Status status;                        // OK, LEASE_EXPIRED, CONFLICT, NOT_FOUND
  std::optional<JobStatus> new_status;  // when OK
  std::optional<FailOutcome> failure;   // when OK and it was a failure
};

struct ClaimParams {
  std::string queue_name;
  std::string worker_id;
  int limit = 1;
  std::chrono::seconds lease_duration{30};
  std::chrono::milliseconds wait{0};  // long-poll
  std::vector<Ack> acks;              // applied before claiming
  // The caller's queues: an ack of a job of another queue is refused
  // (ACCESS_DENIED, in its result). The API checks queue_name itself.
  QueueScope scope;
  // Requested when the caller is gone (its connection closed): a claim that
  // has not taken jobs yet stops waiting and takes none, so no job is leased
  // to nobody. Acks already applied stay applied.
  std::stop_token abandoned;
};
struct ClaimResult {
  std::vector<Job> jobs;                   // claimed (status processing, lease set)
  std::vector<AckItemResult> ack_results;  // one per ClaimParams::acks, same order
};

// lease_id: the strict fence when given; without it worker_id must name the
// job's current holder (event::Heartbeat in core/transition.h).
struct HeartbeatParams {
  std::string job_id, worker_id;
  std::optional<std::string> lease_id;
  std::chrono::seconds lease_duration{30};
  QueueScope scope;  // the caller's: a job of another queue is ACCESS_DENIED
};
struct CompleteParams {
  std::string job_id, worker_id;
  std::optional<std::string> lease_id;  // as HeartbeatParams
  std::optional<std::string> result_json;
  QueueScope scope;  // as HeartbeatParams
};
struct FailParams {
  std::string job_id, worker_id;
  std::optional<std::string> lease_id;  // as HeartbeatParams
  std::string error;
  bool no_retry = false;
  std::optional<std::chrono::milliseconds> retry_after;
  std::optional<std::string> details_json;  // event::Fail::details_json
  QueueScope scope;                         // as HeartbeatParams
};
struct FailResult {
  FailOutcome outcome;  // what the answer says
  Job job;              // after the failure
};

struct RetryParams {
  std::string job_id;
  std::optional<Instant> expires_at;
  RetryBudget budget;  // default reset: a whole max_retries again
  // Redrive into this queue instead (created if new, refused if disabled).
  std::optional<std::string> target_queue;
};

// POST /jobs/{id}/snooze: the holder says "not now, again in `delay`"
// (bounded by the API: 0..kMaxSnoozeDelayMs).
struct SnoozeParams {
  std::string job_id, worker_id, lease_id;
  std::chrono::milliseconds delay{0};
  QueueScope scope;  // as HeartbeatParams
};

// POST /jobs/{id}/release: a quarantined job back to pending.
struct ReleaseParams {
  std::string job_id;
  RetryBudget budget;
  std::optional<std::string> target_queue;  // as RetryParams'
};
// POST /jobs/quarantine/release. The selection: job_ids, else the
// quarantined jobs of queue_name and/or tag (never every job: the API
// refuses an empty selector), newest created first, at most `limit`.
struct BulkReleaseParams {
  std::vector<std::string> job_ids;  // when given, the filter is not used
  std::optional<std::string> queue_name;
  std::optional<std::string> tag;          // as in ListJobsParams::tag
  std::optional<std::string> fingerprint;  // the error class the crash left
  int limit = 100;
  bool dry_run = false;
  RetryBudget budget;
  std::optional<std::string> target_queue;  // as RetryParams'
};
struct BulkReleaseResult {
  bool dry_run = false;
  long long selected_count = 0;           // quarantined jobs selected (would be released)
  std::vector<std::string> released_ids;  // empty on a dry run
};

// GET /jobs: one page of job summaries, newest created first. Unset fields do not filter.
// GET /workers: one page, oldest registration first.
struct ListWorkersParams {
  int limit = 100;
  int offset = 0;
};

struct ListJobsParams {
  std::optional<std::string> queue_name;
  std::optional<JobStatus> status;
  // "key=value" matches a tag exactly; "key" matches jobs having the tag.
  std::optional<std::string> tag;
  // The error class of dead-lettered or quarantined jobs (core/error_fingerprint.h).
  std::optional<std::string> fingerprint;
  int limit = 50;
  int offset = 0;
};

// Which dead-lettered jobs GET /jobs/dlq and GET /jobs/dlq/summary read.
// Unset fields do not filter.
struct DeadLetterFilter {
  std::optional<std::string> queue_name;
  std::optional<std::string> tag;  // as in ListJobsParams::tag
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> error_prefix;  // last_error starts with it (exact)
  std::optional<std::string> fingerprint;   // the error class (core/error_fingerprint.h)
};
// GET /jobs/dlq: one page of dead-lettered jobs, newest deadlettered first.
struct ListDeadLettersParams {
  DeadLetterFilter filter;
  int limit = 50;
  int offset = 0;
};
// GET /jobs/dlq/summary: the largest `limit` groups (no paging).
struct SummarizeDeadLettersParams {
  DeadLetterFilter filter;
  int limit = 20;
};

// POST /jobs/dlq/retry. The selection: job_ids, else the filter (an empty
// filter is every dead job), oldest dead first, at most `limit`.
struct DlqRetryParams {
  std::vector<std::string> job_ids;  // when given, the filter is not used
  DeadLetterFilter filter;
  int limit = 100;
  bool dry_run = false;
  RetryBudget budget;  // default reset: a whole max_retries again
  // A throttled redrive: one job every 1/r s. The throttled redrives of a
  // queue share the rate: one starts 1/r after the last job the earlier ones
  // scheduled (QueueConfig::redrive_until).
  std::optional<double> rate_per_second;
  // Every selected job goes into this queue (created if new, refused if
  // disabled); a throttled redrive then shares the target queue's rate.
  std::optional<std::string> target_queue;
};
struct DlqRetryResult {
  bool dry_run = false;
  long long matched_count = 0;   // dead jobs the selection matches, whatever the limit
  long long selected_count = 0;  // of them, the ones this call retried (would retry)
  std::vector<std::string> retried_ids;
  // A throttled redrive: when its first and last job are due.
  std::optional<Instant> first_due_at, last_due_at;
  // When nothing matched: the DLQ's classes most like what was asked.
  std::vector<DeadLetterGroup> closest_classes;
};

struct DlqPurgeParams {
  DeadLetterFilter filter;
  std::optional<Instant> older_than;
  int limit = 10000;
  bool dry_run = false;  // count what would be deleted, delete nothing
};
struct DlqPurgeResult {
  bool dry_run = false;
  long long count = 0;  // deleted, or (dry run) the number a real purge would delete
  // When nothing matched: the DLQ's classes most like what was asked.
  std::vector<DeadLetterGroup> closest_classes;
};

// POST /operations: a bulk operation over every job the selector matches
// (core/operation.h). The API refuses an empty selector and checks every
// field; `status` narrows ActionStatuses(action) to one of them.
struct CreateOperationParams {
  OperationAction action = OperationAction::kRetry;
  std::string selector_json = "{}";  // the selector as sent (canonical), shown back
  std::vector<std::string> job_ids;  // when given, exactly these (if they match the statuses)
  DeadLetterFilter filter;
  std::optional<Instant> dead_before;  // deadlettered_at < it
  std::optional<JobStatus> status;
  bool dry_run = false;
  std::optional<double> rate_per_second;
  std::optional<RetryBudget> budget;        // retry, release
  std::optional<std::string> target_queue;  // retry, release: as RetryParams'
  std::optional<std::string> reason;
  std::string created_by;  // the caller, as the audit log names it
};
struct CreateOperationResult {
  bool dry_run = false;
  Operation operation;      // created (not on a dry run)
  long long matched = 0;    // dry run: the jobs it would handle now
  std::vector<Job> sample;  // dry run: the first kOperationSampleSize of them (id order)
};

// A queue's auto-redrive policy, its live state and how many of its dead
// jobs it may still revive now (engine_autoredrive.cc).
struct AutoredriveView {
  AutoredrivePolicy policy;
  AutoredriveState state;
  long long eligible = 0;
};
struct PutAutoredriveResult {
  AutoredriveView view;
  bool created = false;
};

struct PriorityChange {
  std::string job_id;
  int old_priority = 0, new_priority = 0;
};

// PUT /queues/{name}/config: only the set fields change.
struct QueueConfigPatch {
  std::optional<int> max_retries;
  std::optional<int> default_timeout;
  std::optional<bool> enabled;
  std::optional<BackoffPolicy> backoff;
  std::optional<int> crash_limit;
  std::optional<int> max_snoozes;
  // Each retention field: unset = unchanged; set to nullopt = keep forever.
  std::optional<std::optional<std::chrono::seconds>> retention_completed;
  std::optional<std::optional<std::chrono::seconds>> retention_deadletter;
  std::optional<std::optional<std::chrono::seconds>> retention_cancelled;
};

// A queue as GET /queues shows it.
struct QueueView {
  QueueConfig config;
  StatusCounts counts;
  std::optional<Instant> oldest_deadletter_at;
};

// GET /queues/{name}/stats: the queue's view and its workers that are not
// offline (Spooled's active_workers; of at most kMaxListWorkersLimit read).
// Its last day: the hourly totals of every node (core/throughput.h:
// FirstHourOfLastDay) and the created_at of its oldest waiting job.
struct QueueStatsView {
  QueueView queue;
  int active_workers = 0;
  JobCounts last_day;
  std::optional<Instant> oldest_waiting_created_at;
  Instant now{};
};

// GET /dashboard: one read snapshot of what the summary is computed from.
// Bounded: every queue (the store holds at most max_queues), at most
// kMaxListWorkersLimit workers (their effective status), and the
// cluster's throughput samples of the last `activity_window`.
struct DashboardView {
  std::vector<QueueView> queues;
  std::vector<WorkerInfo> workers;
  JobCounts recent;    // summed over the window, every queue and node
  JobCounts last_day;  // the hourly totals of every queue and node, as QueueStatsView's
  std::chrono::seconds activity_window{0};
  Instant now{};
  Instant started_at{};  // when the engine started
};

struct RegisterWorkerParams {
  std::optional<std::string> worker_id;  // upsert when given
  std::string queue_name;
  std::string hostname;
  std::optional<std::string> worker_type;
  int max_concurrency = 1;
  std::string metadata_json = "{}";
  std::optional<std::string> version;
};
struct WorkerHeartbeatParams {
  std::string worker_id;
  int current_jobs = 0;
  std::optional<std::string> status;
  std::optional<std::string> metadata_json;
};

// GET /outgoing-webhooks/{id}/deliveries: one page, newest first. Unset status does not filter.
struct ListDeliveriesParams {
  std::string webhook_id;
  std::optional<DeliveryStatus> status;
  int limit = 50;
  int offset = 0;
};

// Schedules (cron jobs). Create: every field of a new schedule; the engine
// checks cron_expression and timezone (VALIDATION naming them) and the
// maximum count of schedules (CONFLICT); the api checks everything else.
struct CreateScheduleParams {
  std::string name;
  std::optional<std::string> description;
  std::string cron_expression;
  std::string timezone = "UTC";
  std::string queue_name;
  std::string payload_template = "{}";  // serialized JSON
  int priority = 0;
  int max_retries = 3;
  int timeout_seconds = 300;
  Tags tags;
  std::string metadata = "{}";  // serialized JSON object
  bool is_active = true;
  MissedRunPolicy missed_run_policy = MissedRunPolicy::kSkip;
  OverlapPolicy overlap_policy = OverlapPolicy::kAllow;
  int backfill_limit = 10;
};

// GET /schedules: unset fields do not filter; oldest created first.
struct ListSchedulesParams {
  std::optional<bool> is_active;
  std::optional<std::string> queue_name;
  int limit = 50;
  int offset = 0;
};

// Update: the fields given replace the schedule's; a new cron_expression or
// timezone recomputes next_run_at from now.
struct SchedulePatch {
  std::optional<std::string> name;
  std::optional<std::optional<std::string>> description;  // set to nullopt clears it
  std::optional<std::string> cron_expression;
  std::optional<std::string> timezone;
  std::optional<std::string> queue_name;
  std::optional<std::string> payload_template;
  std::optional<int> priority;
  std::optional<int> max_retries;
  std::optional<int> timeout_seconds;
  std::optional<Tags> tags;
  std::optional<std::string> metadata;
  std::optional<bool> is_active;
  std::optional<MissedRunPolicy> missed_run_policy;
  std::optional<OverlapPolicy> overlap_policy;
  std::optional<int> backfill_limit;
};

// One entry of a schedule's history: the run, and its job's status now
// (unset when it enqueued none, or the job is gone).
struct ScheduleHistoryEntry {
  ScheduleRun run;
  std::optional<JobStatus> job_status;
};

// POST /workflows: one job of the definition. `job` is a POST /jobs body
// (queue_name set, validated by the api); `depends_on` names other keys.
struct WorkflowJobParams {
  std::string key;
  EnqueueParams job;
  std::vector<std::string> depends_on;
  DependencyMode mode = DependencyMode::kAll;
};
// The engine checks the graph (ValidateWorkflowGraph: VALIDATION naming the
// key) and that every queue is enabled; the api checks every field.
struct CreateWorkflowParams {
  std::string name;
  std::optional<std::string> description;
  std::string metadata_json = "{}";
  std::vector<WorkflowJobParams> jobs;
};
struct WorkflowJobId {
  std::string key;
  std::string job_id;
};
struct CreateWorkflowResult {
  std::string workflow_id;
  std::vector<WorkflowJobId> job_ids;  // in definition order
  WorkflowView workflow;               // as created
};

// GET /workflows: newest created first.
struct ListWorkflowsParams {
  std::optional<WorkflowStatus> status;
  int limit = 50;
  int offset = 0;
};

// GET /jobs/{id}/dependencies: the job, what it waits for and what waits
// for it (at most kMaxListedDependents), and whether its condition holds.
struct JobDependenciesView {
  Job job;
  std::optional<std::string> workflow_id;  // the workflow it belongs to
  JobDependencies links;
  bool dependencies_met = true;
  Readiness readiness = Readiness::kReady;
};

// POST /jobs/{id}/dependencies, and POST /jobs with parent_job_id: the job
// waits for `depends_on` (existing jobs; the job and its dependencies must
// not form a cycle). A job that already ran (processing or finished) takes
// no new dependency (CONFLICT).
struct AddDependenciesParams {
  std::string job_id;
  std::vector<std::string> depends_on;
  DependencyMode mode = DependencyMode::kAll;
  QueueScope scope;  // the caller's: jobs of other queues are ACCESS_DENIED
};
struct AddDependenciesResult {
  long long added = 0;                      // edges that were new
  std::vector<JobDependency> dependencies;  // every edge of the job now
  bool dependencies_met = true;
  JobStatus status = JobStatus::kPending;  // the job's status after
};

}  // namespace redrive::engine
