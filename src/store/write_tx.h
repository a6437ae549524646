// WriteTx: the store's writes, on top of its reads. What every write may
// assume of others running at once is store.h's locking contract.
#pragma once

#include "store/read_tx.h"

namespace redrive::store {

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

}  // namespace redrive::store
