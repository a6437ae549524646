// ReadTx: the store's reads. The interface, its threads and its time are
// store.h's (the header every user includes).
#pragma once

#include "store/store_types.h"

namespace redrive::store {

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

}  // namespace redrive::store
