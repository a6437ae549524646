// The store interface: what Redrive needs from a database, as operations (not
// containers). Two implementations: SqliteStore (embedded, default) and
// PgStore (several Redrive nodes sharing one PostgreSQL database). Nothing
// here may rely on state only one process holds.
//
// Time: the engine passes `now` into every call; stores never read a clock.
// Threads: a Store is thread-safe. A ReadTx/WriteTx is used by one thread.
// tests/store/store_conformance_test.cc defines the behaviour every store has.
//
// The locking contract (what makes several writers safe). On SQLite a
// WriteTx holds the database's one write lock (BEGIN IMMEDIATE) from begin
// to end, so everything below holds trivially; on PostgreSQL (READ
// COMMITTED, one transaction per request) it is what the SQL does:
//  - Every select that feeds a write locks what it returns. The Select*
//    methods of WriteTx (claims, sweeps, redrive, retention, due deliveries)
//    lock FOR UPDATE SKIP LOCKED: two nodes never pick the same row, and a
//    row another transaction is changing is skipped, not waited for.
//  - In a WriteTx, GetJob, GetJobs, GetWebhook, GetDelivery and GetSchedule lock the rows
//    they return (FOR UPDATE; GetJobs in id order, so two callers cannot
//    deadlock), and LockQueue/LockWorker lock a queue's or worker's row for a
//    read-modify-write. A concurrent writer of the same row waits, then
//    reads what this one wrote: a pause on one node is never undone by a
//    config change on another, an operator's webhook disable is never
//    reverted by a delivery outcome. GetQueue and GetWorker do not lock
//    (enqueues and claims read them on the hot path; they write neither).
//  - ApplyChange is guarded (id, status, lease_id): a write decided on a
//    stale read fails with CONFLICT instead of undoing another node's write.
//    A reaper locks the expired rows it reads (SKIP LOCKED) and re-checks
//    lease_expires_at in that read, so it never reaps a lease a heartbeat on
//    another node has just extended.
//  - Races on unique keys resolve, they never fail: two inserts of one
//    idempotency key give one job (the second caller gets created = false),
//    two EnsureQueue of one name give one queue.
//  - A transaction that loses a serialization or deadlock race fails with
//    ABORTED (ErrorCode::kAborted) and is re-run by the write executor; a
//    database that cannot be reached, or is read-only, is UNAVAILABLE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/api_key.h"
#include "core/audit.h"
#include "core/autoredrive.h"
#include "core/clock.h"
#include "core/job.h"
#include "core/job_cursor.h"
#include "core/new_job.h"
#include "core/operation.h"
#include "core/queue.h"
#include "core/refresh_token.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/throughput.h"
#include "core/transition.h"
#include "core/webhook.h"
#include "core/workflow.h"

namespace redrive::store {

// Filters for ListJobs, ListDeadLetters and SummarizeDeadLetters (each says
// which fields it ignores). Unset fields do not filter.
struct JobFilter {
  std::optional<std::string> queue_name;
  std::optional<JobStatus> status;
  // "key=value" matches a tag exactly; "key" matches jobs having the tag.
  std::optional<std::string> tag;
  std::optional<DeadReason> dead_reason;
  // Jobs whose last_error starts with this text (exact, case-sensitive).
  std::optional<std::string> error_prefix;
  // Jobs whose error_fingerprint is this one (core/error_fingerprint.h).
  std::optional<std::string> fingerprint;
  int limit = 50;
  int offset = 0;
};

// Selection of dead-lettered jobs for redrive/purge.
struct DeadLetterSelection {
  std::vector<std::string> job_ids;  // when non-empty: exactly these (if dead)
  std::optional<std::string> queue_name;
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> tag;
  std::optional<std::string> error_prefix;  // last_error starts with it (exact)
  std::optional<std::string> fingerprint;   // error_fingerprint equals it
  std::optional<Instant> dead_before;       // deadlettered_at < dead_before
  // Jobs auto-redriven fewer times than this (job_auto_revivals; auto-redrive's ceiling).
  std::optional<int> auto_revivals_below;
  int limit = 100;
};

// What a bulk operation (core/operation.h) selects: the DLQ selector's
// fields (`match`, as SelectDeadLetters reads them; its limit is the batch
// size) over jobs in any of `statuses`, in creation order after the cursor
// (core/job_cursor.h: created_at, then the store's tie-breaker).
// SelectJobsAfter reads each status apart, an index seek from the cursor
// each, and merges: a batch never sorts every job the selection matches.
struct JobSelection {
  DeadLetterSelection match;
  std::vector<JobStatus> statuses;  // REQUIRES: non-empty
  // Only jobs past it: a SelectedJobs::next of the same store. A cursor
  // without a seq on SQLite (written before its schema version 25) walks
  // ties by id, as it was written for.
  std::optional<JobCursor> after;
};

// One batch of SelectJobsAfter: its jobs in the walk's order, and the cursor
// just past the last of them (the next batch's `after`); unset when none.
struct SelectedJobs {
  std::vector<Job> jobs;
  std::optional<JobCursor> next;
};

// A bulk operation as stored: its record and what it selects (its
// `selection`'s limit is unused; the statuses are operation.statuses).
struct OperationRecord {
  Operation operation;
  DeadLetterSelection selection;
};

// An auto-redrive policy (core/autoredrive.h) and its live state, one row
// per queue. The operator writes the policy, the `autoredrive` duty the
// state: each through its own narrow update, so neither clobbers the other.
struct AutoredriveRecord {
  AutoredrivePolicy policy;
  AutoredriveState state;
};

// Listing a webhook's deliveries, newest first. Unset fields do not filter.
struct DeliveryFilter {
  std::string webhook_id;
  std::optional<DeliveryStatus> status;
  int limit = 50;
  int offset = 0;
};

// Listing schedules, oldest created first. Unset fields do not filter.
struct ScheduleFilter {
  std::optional<bool> is_active;
  std::optional<std::string> queue_name;
  int limit = 50;
  int offset = 0;
};

// Listing workflows, newest created first (ties by id). Unset fields do not
// filter; `status` filters on the status derived from the jobs
// (DeriveWorkflowStatus, computed by the store in its query).
struct WorkflowFilter {
  std::optional<WorkflowStatus> status;
  int limit = 50;
  int offset = 0;
};

// What a job waits for: its mode and the status of each of its dependencies
// (a dependency removed by retention is no longer one).
struct DependencyState {
  DependencyMode mode = DependencyMode::kAll;
  std::vector<JobStatus> statuses;
};

// A blocked job that waits for a given job (SelectBlockedDependents): its
// mode, and whether every one of its dependencies is met (completed, as
// MarkDependencyMet records).
struct BlockedDependent {
  Job job;
  DependencyMode mode = DependencyMode::kAll;
  bool all_met = false;
};

// A dead-lettered or quarantined job stored before error fingerprints
// existed (SelectUnfingerprinted), and the fingerprint the engine computed
// for its last_error (SetErrorFingerprints). Stores never compute one.
struct FingerprintBackfill {
  std::string job_id;
  std::string last_error;
  std::string fingerprint;  // unset (empty) as selected
};

// Outcome of an insert that may hit an existing idempotency key.
struct InsertOutcome {
  std::string id;
  bool created = true;
};

// What a claim reads before it decides (WriteTx::ReadForClaim).
struct ClaimReads {
  std::optional<QueueConfig> queue;  // GetQueue
  std::vector<WorkerInfo> workers;   // GetWorker of each worker id, those found
  std::vector<Job> due;              // SelectDueScheduled(queue, now, limit)
  std::vector<Job> claimable;        // SelectClaimable(queue, now, limit)
};

// Reads. On SQLite a ReadTx is a snapshot (a read transaction); on PostgreSQL
// a REPEATABLE READ or plain statement-level read.
class ReadTx {
 public:
  virtual ~ReadTx() = default;

  // NOT_FOUND if absent.
  virtual Result<Job> GetJob(const std::string& id) = 0;
  // Jobs matching `f`, newest created first; payload and result left empty
  // (summaries) unless with_payload.
  virtual Result<std::vector<Job>> ListJobs(const JobFilter& f, bool with_payload) = 0;
  // Dead-lettered jobs matching `f` (status forced to deadletter), newest
  // deadlettered_at first; payload left empty.
  virtual Result<std::vector<Job>> ListDeadLetters(const JobFilter& f) = 0;
  // Dead-lettered jobs matching `f` grouped by (queue_name, dead_reason,
  // error_fingerprint), largest count first (ties: queue_name, dead_reason,
  // fingerprint; no fingerprint first), at most f.limit groups. Each group's
  // `error` is its smallest last_error (binary order) cut to
  // kDeadLetterErrorChars characters; normalized_error is left unset (the
  // engine derives it). f.status and f.offset are ignored. Reads only dead
  // jobs (their partial index).
  virtual Result<std::vector<DeadLetterGroup>> SummarizeDeadLetters(const JobFilter& f) = 0;
  // The id of the job holding `idempotency_key`, if any.
  virtual Result<std::optional<std::string>> FindIdempotencyKey(const std::string& key) = 0;
  // FindIdempotencyKey of each key, as one batch (PostgreSQL: one round
  // trip): key -> job id, for the keys that are taken.
  virtual Result<std::map<std::string, std::string>> FindIdempotencyKeys(
      const std::vector<std::string>& keys) {
    std::map<std::string, std::string> out;
    for (const std::string& k : keys) {
      REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> id, FindIdempotencyKey(k));
      if (id) out.emplace(k, std::move(*id));
    }
    return out;
  }
  // The jobs among `ids` that exist (any order).
  virtual Result<std::vector<Job>> GetJobs(const std::vector<std::string>& ids) = 0;
  // History of a job, oldest first (empty if unknown); each id the same at every read.
  virtual Result<std::vector<HistoryEntry>> GetHistory(const std::string& job_id) = 0;
  // Counts by status of one queue, or of all queues when queue_name is unset.
  // Cost: a few rows per queue, whatever the number of jobs (counters the
  // database keeps in the transaction of every change of a job's status or
  // queue, insert and delete; a write transaction sees its own changes).
  virtual Result<StatusCounts> CountJobs(const std::optional<std::string>& queue_name) = 0;
  virtual Result<std::optional<Instant>> OldestDeadletterAt(const std::string& queue_name) = 0;
  // The created_at of the queue's oldest job waiting to run (pending or
  // scheduled), if any. Cost: one step of the listing index per status.
  virtual Result<std::optional<Instant>> OldestWaitingCreatedAt(const std::string& queue_name) = 0;

  virtual Result<std::optional<QueueConfig>> GetQueue(const std::string& name) = 0;
  virtual Result<std::vector<QueueConfig>> ListQueues() = 0;

  virtual Result<std::optional<WorkerInfo>> GetWorker(const std::string& id) = 0;
  // One page of workers, oldest registration first (ties by id).
  virtual Result<std::vector<WorkerInfo>> ListWorkers(int limit, int offset) = 0;

  // When the earliest scheduled job is due, if any (the scheduler's next wake).
  virtual Result<std::optional<Instant>> NextScheduledAt() = 0;
  // When the earliest lease of a processing job expires, if any.
  virtual Result<std::optional<Instant>> NextLeaseExpiry() = 0;
  // When the earliest pending/scheduled job reaches its expires_at, if any.
  virtual Result<std::optional<Instant>> NextDeadline() = 0;

  // Outgoing webhooks, oldest created first.
  virtual Result<std::vector<Webhook>> ListWebhooks() = 0;
  // A number that grows whenever a webhook is created or deleted, or its
  // subscription changes (name, url, events, secret, enabled, format) — in
  // that write's transaction, by the database itself — so a node can tell
  // in one cheap read whether its cached subscriptions are stale. Delivery
  // bookkeeping (failure streaks, last delivery) does not move it.
  virtual Result<int64_t> WebhooksVersion() = 0;
  // NOT_FOUND if absent.
  virtual Result<Webhook> GetWebhook(const std::string& id) = 0;
  // Deliveries of one webhook matching `f`, newest created first (rows of
  // one commit: the last written first).
  virtual Result<std::vector<WebhookDelivery>> ListDeliveries(const DeliveryFilter& f) = 0;
  // NOT_FOUND if absent.
  virtual Result<WebhookDelivery> GetDelivery(const std::string& id) = 0;
  // The earliest next_attempt_at of a pending delivery of an enabled
  // webhook, if any (the dispatcher's next wake).
  virtual Result<std::optional<Instant>> NextDeliveryDue() = 0;

  // Schedules (cron jobs) and their runs. GetSchedule is NOT_FOUND if
  // absent; in a write transaction it locks the row (PostgreSQL: FOR
  // UPDATE), for a read-modify-write (update, pause, resume, trigger).
  virtual Result<Schedule> GetSchedule(const std::string& id) = 0;
  // Schedules matching `f`, oldest created first (ties by id).
  virtual Result<std::vector<Schedule>> ListSchedules(const ScheduleFilter& f) = 0;
  // How many schedules exist (the configured maximum is checked against it).
  // In a write transaction the count stays exact until the commit: schedule
  // creations take turns (PostgreSQL: an advisory lock; SQLite has one
  // writer), so nodes creating at once never pass the maximum together.
  virtual Result<long long> CountSchedules() = 0;
  // Runs of one schedule, newest created first (ties, runs of one
  // transaction: the latest fire time first, then the greater id).
  virtual Result<std::vector<ScheduleRun>> ListScheduleRuns(const std::string& schedule_id,
                                                            int limit, int offset) = 0;
  // The earliest next_run_at of an active schedule, if any (the schedule
  // service's next wake). Cost: one step of the active schedules' index.
  virtual Result<std::optional<Instant>> NextScheduleDue() = 0;

  // The cluster's throughput history (WriteTx::RecordThroughput): one point
  // per interval ending after `after` that any node recorded, oldest first,
  // counts summed over every node and over one queue or (unset) all queues.
  // A queue that did nothing in a recorded interval counts zero there.
  // Cost: a range of the samples' key, whatever the age of the store.
  virtual Result<std::vector<ThroughputPoint>> ReadThroughput(
      const std::optional<std::string>& queue_name, Instant after) = 0;
  // The hourly totals (WriteTx::RecordThroughput) of the hours from
  // `from_hour` on, summed over every node and over one queue or (unset)
  // all queues; zero counts when none was recorded. Cost: the rows of those
  // hours (nodes x queues each), never the jobs.
  virtual Result<JobCounts> SumHourlyThroughput(const std::optional<std::string>& queue_name,
                                                Instant from_hour) = 0;

  // The operator audit log: entries matching `f`, newest first (at, then id,
  // descending), each with its targets in the order written, at most
  // f.limit. Cost: a range of the (at, id) index (with f.target, of the
  // target's index), whatever the log's size.
  virtual Result<std::vector<AuditEntry>> ListAudit(const AuditFilter& f) = 0;
  // The Idempotency-Key record of (scope, key), expired or not; unset if
  // absent.
  virtual Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(const std::string& scope,
                                                                        const std::string& key) = 0;

  // Stored API keys (core/api_key.h): every key, revoked ones too, oldest
  // created first (ties by id). At most kMaxStoredApiKeys exist.
  virtual Result<std::vector<StoredApiKey>> ListApiKeys() = 0;
  // NOT_FOUND if absent.
  virtual Result<StoredApiKey> GetApiKey(const std::string& id) = 0;
  // A number that grows, in the writing transaction, whenever a key is
  // inserted or updated (InsertApiKey, UpdateApiKey), so a node can tell in
  // one cheap read whether its cached keys are stale. RecordApiKeyUse does
  // not move it.
  virtual Result<int64_t> ApiKeysVersion() = 0;

  // Workflows (core/workflow.h). Their status and counts are read from
  // their jobs, never stored. GetWorkflow is NOT_FOUND if absent.
  virtual Result<WorkflowView> GetWorkflow(const std::string& id) = 0;
  // Workflows matching `f`, newest created first (ties by id).
  virtual Result<std::vector<WorkflowView>> ListWorkflows(const WorkflowFilter& f) = 0;
  // One page of a workflow's jobs in definition order (position).
  virtual Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(const std::string& workflow_id,
                                                               int limit, int offset) = 0;
  // The workflow `job_id` belongs to, if any.
  virtual Result<std::optional<WorkflowMember>> GetWorkflowMember(const std::string& job_id) = 0;
  // A job's dependencies and at most `limit` of its dependents.
  virtual Result<JobDependencies> GetJobDependencies(const std::string& job_id, int limit) = 0;
  // What `job_id` waits for; unset when it has no dependency. Not locked:
  // a decision that writes reads through SelectBlockedDependents.
  virtual Result<std::optional<DependencyState>> GetDependencyState(const std::string& job_id) = 0;
  // Whether `job_id` waits, directly or through other jobs, for `on_job_id`
  // (so an edge making on_job_id wait for job_id would close a cycle).
  // Walks at most `max_jobs` jobs; a graph larger than that answers
  // CONFLICT (too large to check) rather than walking on.
  virtual Result<bool> DependsOnTransitively(const std::string& job_id,
                                             const std::string& on_job_id, size_t max_jobs) = 0;

  // Bulk operations (core/operation.h). GetOperation is NOT_FOUND if
  // absent; in a write transaction it locks the row (PostgreSQL: FOR
  // UPDATE), for a read-modify-write (a batch, a cancel).
  virtual Result<OperationRecord> GetOperation(const std::string& id) = 0;
  // Newest created first (ties by id, greater first).
  virtual Result<std::vector<OperationRecord>> ListOperations(int limit, int offset) = 0;
  // How many jobs `sel` matches after its cursor, whatever sel.match.limit.
  // Locks nothing.
  virtual Result<long long> CountSelectedJobs(const JobSelection& sel) = 0;
  // When the earliest unfinished operation's next batch is due (its
  // next_batch_at, or its created_at when it has none), if any.
  virtual Result<std::optional<Instant>> NextOperationDue() = 0;

  // Auto-redrive policies (core/autoredrive.h): the queue's, unset if it has
  // none; in a write transaction the row is locked (PostgreSQL: FOR UPDATE),
  // for the duty's step and the operator's read-modify-write.
  virtual Result<std::optional<AutoredriveRecord>> GetAutoredrive(
      const std::string& queue_name) = 0;
  // Every policy, by queue name (at most one per queue).
  virtual Result<std::vector<AutoredriveRecord>> ListAutoredrive() = 0;

  // Token exchange (core/refresh_token.h). The secret access tokens are
  // signed with, shared by every node; unset until a WriteTx ensured one.
  virtual Result<std::optional<std::string>> GetTokenSecret() = 0;
  // The refresh tokens issued to `key_id`, ended and expired ones too (until
  // pruned), oldest created first (ties by hash). Cost: the key's rows.
  virtual Result<std::vector<RefreshToken>> ListRefreshTokens(const std::string& key_id) = 0;
  // The refresh token whose hash is `token_hash`, ended or not (until
  // pruned); unset if none. Cost: one step of the primary key.
  virtual Result<std::optional<RefreshToken>> GetRefreshToken(const std::string& token_hash) = 0;
};

// A write transaction. Commit() makes every change durable (fsync) before it
// returns OK; destroying an uncommitted WriteTx rolls it back.
//
// Savepoints let the engine group many independent requests into one
// transaction (group commit): each request runs between Savepoint() and
// Release(), and a request that fails is undone alone with Rollback().
// EnsureQueue's `max_queues` for callers that set no limit (tests, tools).
inline constexpr size_t kNoQueueLimit = static_cast<size_t>(-1);
// InsertWebhook's `max_webhooks` for callers that set no limit (tests).
inline constexpr size_t kNoWebhookLimit = static_cast<size_t>(-1);

class WriteTx : public ReadTx {
 public:
  virtual Status Savepoint() = 0;
  virtual Status ReleaseSavepoint() = 0;
  virtual Status RollbackToSavepoint() = 0;  // also releases it
  // Returns once the transaction is committed and durable.
  virtual Status Commit() = 0;
  // Commits, and may return before the commit is durable: on a store whose
  // traits say `pipelined_sync`, the commit is durable only once a
  // Store::SyncCommits() called after this returned has returned OK, and
  // the caller answers nobody before that. Elsewhere the same as Commit().
  virtual Status CommitWithoutSync() { return Commit(); }

  // Inserts a new job and its "created" history entry. If job.idempotency_key
  // is already used by an existing job, inserts nothing and returns that job's
  // id with created = false.
  // History entries, here and in ApplyChange, are written as given but for
  // their ids (set by core's NewHistoryEntry), which a store may derive when
  // read instead (SQLite does). REQUIRES: created.id is set (INTERNAL otherwise).
  virtual Result<InsertOutcome> InsertJob(const Job& job, const HistoryEntry& created) = 0;
  // InsertJob of each job, in order, as one batch (PostgreSQL: one round
  // trip for all of them but those whose idempotency key was taken). Two
  // jobs of the batch with one key: the second gets the first's id.
  virtual Result<std::vector<InsertOutcome>> InsertJobs(const std::vector<NewJob>& jobs) {
    std::vector<InsertOutcome> out;
    out.reserve(jobs.size());
    for (const NewJob& j : jobs) {
      REDRIVE_ASSIGN_OR_RETURN(InsertOutcome o, InsertJob(j.job, j.created));
      out.push_back(std::move(o));
    }
    return out;
  }

  // Writes change.after if the stored row still matches the guard (its id,
  // change.before.status and change.before.lease_id), plus change.history if
  // present. Only the fields that differ between before and after are
  // written (payload and result are never rewritten unchanged). CONFLICT if
  // the guard no longer holds (nothing written); INTERNAL if the change
  // touches a field no transition may change (id, queue_name, tags,
  // idempotency_key, created_at).
  virtual Status ApplyChange(const Change& change) = 0;
  // ApplyChange of each change, in order, as one batch (PostgreSQL: one
  // round trip). applied[i] is false where change i's guard no longer held
  // (ApplyChange's CONFLICT: nothing written for it); any other failure
  // fails the call, and the transaction must be dropped.
  virtual Result<std::vector<bool>> ApplyChanges(const std::vector<Change>& changes) {
    std::vector<bool> applied;
    applied.reserve(changes.size());
    for (const Change& c : changes) {
      Status st = ApplyChange(c);
      if (!st.ok() && st.code() != ErrorCode::kConflict) return st;
      applied.push_back(st.ok());
    }
    return applied;
  }

  // A claim's reads, each as its own call reads it (the selects lock as
  // they do), as one batch (PostgreSQL: one round trip): the queue, the
  // claiming workers (one claim, or several a node took together), the due
  // scheduled jobs and the claimable ones. Where the queue is missing,
  // paused or disabled, or every worker deregistered, the lists may be empty
  // (the claim takes nothing; rows it locked are released at the
  // transaction's end).
  virtual Result<ClaimReads> ReadForClaim(const std::string& queue_name,
                                          std::span<const std::string> worker_ids, Instant now,
                                          int limit) {
    ClaimReads r;
    REDRIVE_ASSIGN_OR_RETURN(r.queue, GetQueue(queue_name));
    if (!r.queue || r.queue->paused || !r.queue->enabled) return r;
    bool anyone = false;
    for (const std::string& id : worker_ids) {
      REDRIVE_ASSIGN_OR_RETURN(std::optional<WorkerInfo> w, GetWorker(id));
      anyone = anyone || !w || !w->deregistered_at;
      if (w) r.workers.push_back(std::move(*w));
    }
    if (!anyone) return r;
    REDRIVE_ASSIGN_OR_RETURN(r.due, SelectDueScheduled(queue_name, now, limit));
    REDRIVE_ASSIGN_OR_RETURN(r.claimable, SelectClaimable(queue_name, now, limit));
    return r;
  }
  // Claim candidates: pending jobs of `queue_name` not past expires_at, highest
  // priority then oldest created_at first, at most `limit`. On PostgreSQL the
  // rows are locked FOR UPDATE SKIP LOCKED. Cost independent of queue depth.
  virtual Result<std::vector<Job>> SelectClaimable(const std::string& queue_name, Instant now,
                                                   int limit) = 0;
  // Scheduled jobs with scheduled_at <= now (of one queue, or all), earliest first.
  virtual Result<std::vector<Job>> SelectDueScheduled(const std::optional<std::string>& queue_name,
                                                      Instant now, int limit) = 0;
  // Processing jobs with lease_expires_at <= now, earliest first.
  virtual Result<std::vector<Job>> SelectExpiredLeases(Instant now, int limit) = 0;
  // Pending or scheduled jobs with expires_at <= now, earliest first.
  virtual Result<std::vector<Job>> SelectPastDeadline(Instant now, int limit) = 0;
  // Processing jobs held by `worker_id`.
  virtual Result<std::vector<Job>> SelectHeldBy(const std::string& worker_id, int limit) = 0;
  // Dead-lettered jobs matching `sel`, oldest deadlettered_at first, with payload.
  virtual Result<std::vector<Job>> SelectDeadLetters(const DeadLetterSelection& sel) = 0;
  // How many dead-lettered jobs match `sel`, whatever its limit (a redrive
  // reports how many match besides how many it takes). Locks nothing.
  virtual Result<long long> CountDeadLetters(const DeadLetterSelection& sel) = 0;
  // Dead-lettered or quarantined jobs with a last_error and no
  // error_fingerprint (stored before fingerprints existed), by id, at most
  // `limit`; `fingerprint` left empty. Cost independent of the other jobs
  // (a partial index of exactly these).
  virtual Result<std::vector<FingerprintBackfill>> SelectUnfingerprinted(int limit) = 0;
  // Sets each job's error_fingerprint, only while it is still dead-lettered
  // or quarantined, has none and has the same last_error. Returns how many
  // were set.
  virtual Result<long long> SetErrorFingerprints(const std::vector<FingerprintBackfill>& rows) = 0;

  // Deletes the jobs (and their history). Returns how many were deleted.
  virtual Result<long long> DeleteJobs(const std::vector<std::string>& ids) = 0;
  // Ids of the jobs of `queue_name` in `status` (completed, cancelled or
  // deadletter; another is INTERNAL) whose completed_at is before `before`,
  // oldest first (retention). A dead job's completed_at is when it entered
  // the DLQ: core sets it with deadlettered_at, which a store may read
  // instead (SQLite does, from its DLQ index).
  virtual Result<std::vector<std::string>> SelectRetentionExpired(const std::string& queue_name,
                                                                  JobStatus status, Instant before,
                                                                  int limit) = 0;

  // Creates the queue with defaults if absent; returns its config either way.
  // Creating it when the store already holds `max_queues` queues is CONFLICT
  // (QueueLimitMessage), and exact under concurrent creations (SQLite has one
  // writer; PostgreSQL serializes creations on an advisory lock).
  virtual Result<QueueConfig> EnsureQueue(const std::string& name, Instant now,
                                          size_t max_queues) = 0;
  // The queue's config with its row locked until the transaction ends, for a
  // read-modify-write (pause, resume, configure). Unset if absent.
  virtual Result<std::optional<QueueConfig>> LockQueue(const std::string& name) = 0;
  // Inserts or replaces a queue's config.
  virtual Status PutQueue(const QueueConfig& config) = 0;
  // Deletes a queue's config; with delete_jobs also all its jobs. NOT_FOUND if absent.
  virtual Status DeleteQueue(const std::string& name, bool delete_jobs) = 0;

  // The worker's entry with its row locked until the transaction ends, for a
  // read-modify-write (register, heartbeat, deregister). Unset if absent.
  virtual Result<std::optional<WorkerInfo>> LockWorker(const std::string& id) = 0;
  // Inserts or replaces a worker entry.
  virtual Status PutWorker(const WorkerInfo& worker) = 0;
  // Deletes at most `limit` workers whose last heartbeat is before `before`
  // and that hold no processing job, oldest heartbeat first. Returns how many.
  virtual Result<long long> DeleteOfflineWorkers(Instant before, int limit) = 0;

  // Outgoing webhooks and their durable outbox (webhook_deliveries).
  // CONFLICT (WebhookLimitMessage) when the store already holds
  // `max_webhooks` webhooks; exact with several writers (creations are
  // serialized from the count to the commit).
  virtual Status InsertWebhook(const Webhook& webhook, size_t max_webhooks) = 0;
  // Replaces every field of an existing webhook. NOT_FOUND if absent.
  virtual Status UpdateWebhook(const Webhook& webhook) = 0;
  // Deletes the webhook and all its deliveries. NOT_FOUND if absent.
  virtual Status DeleteWebhook(const std::string& id) = 0;
  // Writes nothing (and succeeds) when the delivery's webhook no longer
  // exists: a node whose subscriptions were a moment stale must not fail
  // the job request that emitted the event. A webhook deleted concurrently
  // either waits for this transaction (and deletes the delivery with its
  // webhook) or is seen gone.
  virtual Status InsertDelivery(const WebhookDelivery& delivery) = 0;
  // Replaces the mutable fields (status, attempts, next_attempt_at, last_*,
  // delivered_at, duration_ms). NOT_FOUND if absent (its webhook was deleted).
  // InsertDelivery and UpdateDelivery also write `reservation`, and every
  // read of a delivery returns it.
  virtual Status UpdateDelivery(const WebhookDelivery& delivery) = 0;
  // Pending deliveries with next_attempt_at <= now whose webhook is enabled,
  // earliest due first, at most `limit`. On PostgreSQL locked FOR UPDATE
  // SKIP LOCKED; the caller reserves them by moving next_attempt_at.
  virtual Result<std::vector<WebhookDelivery>> SelectDueDeliveries(Instant now, int limit) = 0;
  // Deletes delivered and failed deliveries created before `before`, at most
  // `limit`. Returns how many were deleted.
  virtual Result<long long> DeleteFinishedDeliveries(Instant before, int limit) = 0;

  // Schedules. Update replaces every field of an existing schedule; Delete
  // removes it and its runs. Both NOT_FOUND if absent.
  virtual Status InsertSchedule(const Schedule& schedule) = 0;
  virtual Status UpdateSchedule(const Schedule& schedule) = 0;
  virtual Status DeleteSchedule(const std::string& id) = 0;
  // Active schedules with next_run_at <= now, earliest first, at most
  // `limit`. On PostgreSQL locked FOR UPDATE SKIP LOCKED: two nodes never
  // fire the same schedule at once; the caller advances next_run_at.
  virtual Result<std::vector<Schedule>> SelectDueSchedules(Instant now, int limit) = 0;
  // Records one run (its schedule must exist).
  virtual Status InsertScheduleRun(const ScheduleRun& run) = 0;
  // Run-history retention: deletes runs that are not among the newest
  // `keep_per_schedule` of their schedule (ListScheduleRuns's order) or were
  // created before `before`, at most `limit`. Returns how many.
  virtual Result<long long> DeleteOldScheduleRuns(int keep_per_schedule, Instant before,
                                                  int limit) = 0;

  // Adds one node's sample of one interval to the throughput history, as
  // one batch (one statement on PostgreSQL). Counts add up per (node,
  // interval, queue): a node that writes an interval again (it restarted
  // within it) adds to what it wrote, never overwrites it; other nodes'
  // rows of the interval are their own, summed by ReadThroughput. The
  // interval is recorded even when sample.per_queue is empty (a quiet
  // interval is a point of zeros). A node only ever writes its own rows.
  // In the same write the sample's counts, all of JobCounts' fields, are
  // added to the node's hourly totals per queue of the hour
  // HourOfInterval(sample.at) (read by SumHourlyThroughput).
  virtual Status RecordThroughput(const ThroughputSample& sample) = 0;
  // Deletes every node's throughput samples of intervals ending before
  // `before` (idempotent: any node may prune). Returns how many rows.
  virtual Result<long long> DeleteThroughputBefore(Instant before) = 0;
  // Deletes every node's hourly totals of hours before `before` (idempotent).
  // Returns how many rows.
  virtual Result<long long> DeleteHourlyThroughputBefore(Instant before) = 0;

  // Writes an audit entry and its targets. REQUIRES: entry.id is new.
  virtual Status InsertAuditEntry(const AuditEntry& entry) = 0;
  // Deletes at most `limit` audit entries (with their targets) older than
  // `before`, oldest first. Returns how many entries.
  virtual Result<long long> DeleteAuditBefore(Instant before, int limit) = 0;
  // Reserves record.(scope, key): writes `record` (its response fields are
  // ignored: it is stored in flight) when the key is free or its record
  // expired (expires_at <= record.created_at), and answers true; answers
  // false and writes nothing while another record holds the key. Two
  // concurrent reservations of one key: exactly one gets true (the other
  // waits for it on PostgreSQL, then sees it).
  virtual Result<bool> ReserveIdempotencyKey(const IdempotencyRecord& record) = 0;
  // Stores the answer (response_*) of the record reserved as
  // record.(scope, key) with record.fingerprint. NOT_FOUND if no such record.
  virtual Status CompleteIdempotencyKey(const IdempotencyRecord& record) = 0;
  // Frees a reserved key (a request whose answer is not kept). Succeeds if absent.
  virtual Status DeleteIdempotencyKey(const std::string& scope, const std::string& key) = 0;
  // Deletes at most `limit` records with expires_at <= now. Returns how many.
  virtual Result<long long> DeleteExpiredIdempotencyKeys(Instant now, int limit) = 0;

  // Stored API keys. Insert REQUIRES: id and secret_hash are new (both are
  // unique in the table). Update replaces every field but id, secret_hash, prefix,
  // created_at and last_used_at; NOT_FOUND if absent. Keys are never
  // deleted (a revoked key stays, inactive).
  virtual Status InsertApiKey(const StoredApiKey& key) = 0;
  virtual Status UpdateApiKey(const StoredApiKey& key) = 0;
  // Moves each key's last_used_at forward to `use.at` (never back); unknown
  // ids are skipped. Bookkeeping: does not move ApiKeysVersion.
  virtual Status RecordApiKeyUse(const std::vector<ApiKeyUse>& uses) = 0;

  // Workflows and dependencies (core/workflow.h). InsertWorkflow writes the
  // workflow and its members; their jobs are inserted (InsertJobs) and their
  // edges (InsertDependencies) in the same transaction, so a workflow is
  // created whole or not at all. REQUIRES: workflow.id is new, every
  // member's job exists and belongs to no workflow.
  virtual Status InsertWorkflow(const Workflow& workflow,
                                const std::vector<WorkflowMember>& members) = 0;
  // Adds the edges (both jobs must exist; the caller has locked the jobs
  // depended on), each met when its job depended on has completed; an edge
  // already stored is kept.
  // Every edge of a job carries its mode: the edges' job ids take the mode
  // given here (all of their edges, old ones too). Returns how many edges
  // were new.
  virtual Result<long long> InsertDependencies(const std::vector<JobDependency>& edges) = 0;
  // Records that `job_id` completed: every dependency on it is met from now
  // on (a completed job never runs again, so met stays met). Returns how
  // many dependencies that was: 0 when nothing waits for it, the common
  // case, which then costs this one statement. An edge inserted later on an
  // already completed job is met at insert (InsertDependencies).
  virtual Result<long long> MarkDependencyMet(const std::string& job_id) = 0;
  // The blocked jobs waiting for `job_id`, in id order, each with its mode
  // and whether all of its dependencies are met: one indexed probe for an
  // unmet one, whatever the number of dependencies. The dependents' rows are
  // locked (PostgreSQL: FOR UPDATE, before whether they are met is read, in
  // a later statement), so of two transactions completing two dependencies
  // of one job, the second sees the first's mark and unblocks it.
  virtual Result<std::vector<BlockedDependent>> SelectBlockedDependents(
      const std::string& job_id) = 0;
  // The jobs of a workflow in one of `statuses`, in id order, at most
  // `limit`, locked (PostgreSQL: FOR UPDATE), for a workflow's cancel or retry.
  virtual Result<std::vector<Job>> SelectWorkflowJobs(const std::string& workflow_id,
                                                      const std::vector<JobStatus>& statuses,
                                                      int limit) = 0;

  // Bulk operations. InsertOperation REQUIRES: a new id; CONFLICT when
  // `max_unfinished` operations are already queued or running, exact with
  // several writers (PostgreSQL: creations take turns on an advisory lock).
  virtual Status InsertOperation(const OperationRecord& op, size_t max_unfinished) = 0;
  // Writes an operation's mutable fields (state, matched, done, failed,
  // cursor, error, started_at, finished_at, next_batch_at, updated_at).
  // NOT_FOUND if absent.
  virtual Status UpdateOperation(const Operation& op) = 0;
  // Unfinished operations whose next batch is due at `now` (next_batch_at
  // unset or <= now), oldest created first, at most `limit`. On PostgreSQL
  // locked FOR UPDATE SKIP LOCKED: two nodes never run one batch twice.
  virtual Result<std::vector<OperationRecord>> SelectDueOperations(Instant now, int limit) = 0;
  // The jobs `sel` matches after its cursor, in creation order, at most
  // sel.match.limit, with payload. On PostgreSQL locked FOR UPDATE SKIP
  // LOCKED (a job another transaction holds is left for a later batch).
  virtual Result<SelectedJobs> SelectJobsAfter(const JobSelection& sel) = 0;
  // Deletes at most `limit` finished operations (completed, cancelled,
  // failed) whose finished_at is before `before`, oldest finished first; an
  // unfinished one is never deleted. Returns how many.
  virtual Result<long long> DeleteFinishedOperationsBefore(Instant before, int limit) = 0;

  // Auto-redrive. Insert REQUIRES: the queue has no policy yet. The updates
  // are narrow: UpdateAutoredrivePolicy writes the policy's fields only
  // (the operator's), UpdateAutoredriveState the state's only (the duty's);
  // both NOT_FOUND if the queue has no policy. Delete: NOT_FOUND if absent.
  virtual Status InsertAutoredrive(const AutoredriveRecord& rec) = 0;
  virtual Status UpdateAutoredrivePolicy(const AutoredrivePolicy& policy) = 0;
  virtual Status UpdateAutoredriveState(const std::string& queue_name,
                                        const AutoredriveState& state) = 0;
  virtual Status DeleteAutoredrive(const std::string& queue_name) = 0;
  // Adds one to the automatic revivals of each job of `ids` (unknown ids are
  // skipped): the jobs auto-redrive just redrove. Kept beside the job (the
  // job_auto_revivals table, deleted with it), never reset. Returns how many.
  virtual Result<long long> CountAutoRevivals(const std::vector<std::string>& ids) = 0;

  // Token exchange (core/refresh_token.h).
  // The token secret: stores `candidate` when the store holds none, then
  // returns the stored one. Two nodes racing both get the one secret that
  // was stored first (insert-if-absent, then read back; on PostgreSQL the
  // second waits for the first's commit).
  virtual Result<std::string> EnsureTokenSecret(const std::string& candidate) = 0;
  // Stores a new refresh token (REQUIRES: token_hash is new; not ended),
  // then ends, as kRefreshEndEvicted at token.created_at, the oldest of its
  // key's live tokens beyond `max_live_per_key` (the new one counts).
  // Returns how many it ended. Exact with several writers (PostgreSQL: the
  // key's issues take turns on an advisory lock).
  virtual Result<long long> InsertRefreshToken(const RefreshToken& token,
                                               size_t max_live_per_key) = 0;
  // Ends the token whose hash is `token_hash` if it is live at `now`
  // (ended_at = now, end_reason = `reason`), and returns it as it was before
  // this call, so LiveAt(now) on the answer says whether this call ended it;
  // unset if unknown. Single use under concurrency: of two transactions
  // ending one token, exactly one sees it live (PostgreSQL: the row is
  // locked; the second waits, then sees it ended).
  virtual Result<std::optional<RefreshToken>> EndRefreshToken(const std::string& token_hash,
                                                              Instant now,
                                                              std::string_view reason) = 0;
  // Ends every token of `key_id` live at `now` (logout of a key, its
  // revocation). Returns how many.
  virtual Result<long long> EndRefreshTokensOfKey(const std::string& key_id, Instant now,
                                                  std::string_view reason) = 0;
  // Deletes at most `limit` tokens that stopped being usable (ended, or
  // expired) before `before`, earliest first. Returns how many.
  virtual Result<long long> DeleteOldRefreshTokens(Instant before, int limit) = 0;
};

// How the engine runs writes on a store (engine/write_executor.h).
enum class WriteModel {
  // One writer: the requests that arrive together share one transaction, a
  // savepoint each, and one commit (SQLite: one fsync serves the batch).
  kGroupCommit,
  // Many writers: each request is its own transaction, run on one of
  // `writer_connections` connections at once (PostgreSQL shares one WAL
  // flush among concurrent commits by itself).
  kTransactionPerRequest,
};

struct StoreTraits {
  WriteModel write_model = WriteModel::kGroupCommit;
  size_t writer_connections = 1;
  // Commits can be made durable apart from committing them
  // (WriteTx::CommitWithoutSync, Store::SyncCommits): the group committer
  // runs the next batch while the last one is being synced.
  bool pipelined_sync = false;
};

// Cross-node wake-ups for long-poll claims, for stores that several nodes
// share. After its commits a node publishes the queues that gained claimable
// jobs; every other node hears them and wakes its own parked claims. It is
// a hint, never the truth: a lost wake-up costs latency (the engine's slow
// re-poll is the net), never a job.
//
// Thread-safety: Publish may be called from any thread; the callbacks run on
// the channel's own thread.
class WakeChannel {
 public:
  virtual ~WakeChannel() = default;
  // Starts listening: `on_wake(queue)` for each queue another node
  // published, `on_reset()` after (re)connecting, when wake-ups may have
  // been missed (wake every waiter).
  virtual Status Start(std::function<void(const std::string& queue)> on_wake,
                       std::function<void()> on_reset) = 0;
  // Hands `queues` to the channel and returns at once. They are sent
  // outside any job transaction, coalesced (a queue published many times
  // while a send is in flight is sent once).
  virtual void Publish(const std::vector<std::string>& queues) = 0;
  // Stops both directions and joins the channel's thread. Idempotent.
  virtual void Stop() = 0;
};

// Duty leadership: which node runs each background duty ("scheduler",
// "lease-reaper", "webhook-dispatch", ...; any name). Nodes sharing a
// database run the same duties; at most one of them leads a duty at a time,
// so a duty's passes are not repeated by every node. Leadership saves work,
// it does not make a duty safe: every duty's writes stay guarded (ApplyChange,
// delivery reservations), so the rare moment two nodes both run a duty (a
// leader paused longer than its hold, then resumed) does no harm.
//
// Holding: Hold acquires a free duty and keeps the one this node holds. A
// node keeps a duty while it calls Hold for it at least once a second; one
// that stops (it died, it hangs) is replaced within seconds — how is the
// store's (SQLite: a lease that lapses after SqliteOptions::duty_lease_ttl;
// PostgreSQL: a session advisory lock, released when the session ends).
// ReleaseAll, and destroying the object, give up every duty at once, so a
// node that stops cleanly is replaced at the other nodes' next Hold.
//
// Thread-safety: thread-safe (the background loop and the webhook
// dispatcher call it from their threads). Must not outlive its store.
class Leadership {
 public:
  virtual ~Leadership() = default;  // gives up every duty, as ReleaseAll
  // True while this node leads `duty`, acquiring it if no live node holds
  // it. Cheap enough to call before every pass: a store may answer from
  // memory while its hold is fresh. `now` is the engine clock (stores never
  // read one): SQLite's leases are written and compared in it. An error
  // (the store cannot be reached) means "do not run the duty now".
  virtual Result<bool> Hold(const std::string& duty, Instant now) = 0;
  // Gives up every duty this node holds (clean shutdown). A later Hold may
  // acquire again.
  virtual void ReleaseAll() = 0;
};

// What Store::RefreshPlannerStatistics did.
enum class PlannerStatistics {
  kNotKept,  // the store keeps none a refresh would help (SQLite's plans are not costed from them)
  kFresh,    // nothing to do: the tables have not grown enough since
  kRefreshed,  // the statistics were taken again
};

class Store {
 public:
  virtual ~Store() = default;
  virtual StoreTraits traits() const = 0;
  // Null when every writer lives in this process (the engine's own
  // notifications suffice; several processes on one SQLite file rely on the
  // re-poll).
  virtual std::unique_ptr<WakeChannel> NewWakeChannel() { return nullptr; }
  // Creates or upgrades the schema. Called once at start-up.
  virtual Status Migrate() = 0;
  // A read snapshot. Thread-safe; may be called from many threads at once.
  virtual Result<std::unique_ptr<ReadTx>> BeginRead() = 0;
  // A write transaction. With kGroupCommit the engine holds at most one at a
  // time (on SQLite, writers of other processes wait: busy timeout); with
  // kTransactionPerRequest up to writer_connections at once.
  virtual Result<std::unique_ptr<WriteTx>> BeginWrite() = 0;
  // Cheap liveness check (health/ready).
  virtual Status Ping() = 0;
  // Commit marks, for `pipelined_sync` stores (elsewhere every commit is
  // durable when it returns, and both are 0). Commits are numbered from 1
  // in the order they start. CommitMark(): the number of the latest commit
  // that started, so a read snapshot taken before this call sees no commit
  // numbered higher. SyncCommits(): makes every commit that had returned
  // when it was called durable, and returns the highest such number. A
  // failed sync is final (the store stops taking writes).
  virtual uint64_t CommitMark() const { return 0; }
  virtual Result<uint64_t> SyncCommits() { return uint64_t{0}; }
  // The database's own clock, for a store other processes share (nodes
  // compare theirs with it: engine/services/clock_check.h); unset for a
  // store on this machine, whose clock is the process's.
  virtual Result<std::optional<Instant>> DatabaseNow() { return std::optional<Instant>(); }
  // Keeps the query planner's statistics of the tables that grow with the
  // jobs in step with their size, so that no statement keeps a plan made for
  // a table a fraction of its size (PostgreSQL: a prepared statement's
  // generic plan, made when the table was small, scans it whole until the
  // statistics are taken again; autovacuum takes them only every minute or
  // so). Cheap when there is nothing to do; one node calls it for all.
  virtual Result<PlannerStatistics> RefreshPlannerStatistics() {
    return PlannerStatistics::kNotKept;
  }
  // The duty leadership of the node `node_id` (see Leadership), obtained once
  // per engine. REQUIRES: node_id is non-empty and unique among the nodes
  // sharing the database (two objects with one id may both hold a duty).
  virtual Result<std::unique_ptr<Leadership>> NewLeadership(const std::string& node_id) = 0;
  // "sqlite 3.40.1 (WAL, synchronous=FULL)" and the like.
  virtual std::string Describe() const = 0;
};

}  // namespace redrive::store
