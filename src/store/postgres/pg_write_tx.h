// PgWriteTx: one write transaction on one pooled connection, BEGIN (READ
// COMMITTED). Many run at once (WriteModel::kTransactionPerRequest), on
// this node and others; store.h's locking contract is what keeps them
// apart: its Select* lock FOR UPDATE SKIP LOCKED, its Get*/Lock* FOR UPDATE,
// ApplyChange is a guarded UPDATE, and unique-key races resolve with
// ON CONFLICT. Commit returns once the commit is durable
// (synchronous_commit=on); destroying it uncommitted rolls back.
//
// Round trips: a guarded write of a job that this transaction locked as it
// read it (GetJob, GetJobs, ReadForClaim, the Select*), and has not seen
// change since, cannot fail its guard: nobody else can write a row this
// transaction holds locked. Such writes are deferred (PgConnection::Defer)
// and ride with the next statement or the COMMIT, in the checked form that
// aborts the transaction should the guard fail after all. A request that
// reads its job, writes it and commits is then three round trips: the
// begin, the read, and the write with the commit.
//
// Error contract: a failed statement aborts the whole PostgreSQL
// transaction (savepoints aside): every later call fails, and the caller
// drops the transaction (ABORTED ones are re-run by the write executor).
//
// Thread-safety: none; used by one thread. Must not outlive its store.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/job_count_deltas.h"
#include "store/postgres/pg_pool.h"
#include "store/postgres/pg_read_tx.h"
#include "store/postgres/pg_reads.h"
#include "store/postgres/pg_write_health.h"
#include "store/store.h"

namespace redrive::store::postgres {

class PgWriteTx final : private PgConnectionHolder, public PgReads<WriteTx> {
 public:
  // The begin also reads the webhooks version, which every write
  // transaction's outbox asks for first: one round trip for both, as
  // prepared statements (neither is parsed or planned again).
  inline static constexpr char kBegin[] = "BEGIN ISOLATION LEVEL READ COMMITTED";
  inline static constexpr char kReadWebhooksVersion[] =
      "SELECT version FROM redrive.webhooks_version WHERE id = 1";
  // Runs kBegin and kReadWebhooksVersion on `conn`; the version's result.
  static Result<PgResult> Begin(PgConnection& conn);
  // REQUIRES: `conn` is inside a transaction begun with Begin, which read
  // `webhooks_version`. The commit and a failure that says the database
  // cannot write are reported to `health`, which must outlive this.
  PgWriteTx(PooledConnection conn, std::optional<int64_t> webhooks_version, PgWriteHealth& health)
      : PgConnectionHolder(std::move(conn)),
        PgReads(*held, /*locking=*/true),
        webhooks_version_(webhooks_version),
        health_(health) {
    held->ClearLastError();
  }
  ~PgWriteTx() override;  // rolls back unless committed

  // As read by the begin, until this transaction writes a webhook.
  Result<int64_t> WebhooksVersion() override;

  Status Savepoint() override;
  Status ReleaseSavepoint() override;
  Status RollbackToSavepoint() override;
  // Sends the transaction's job_counts deltas with the COMMIT (one deferred
  // statement, no extra round trip).
  Status Commit() override;
  // PgReads' counters plus this transaction's deltas not yet written.
  Result<StatusCounts> CountJobs(const std::optional<std::string>& queue_name) override;
  // A small write (to redrive.write_probe) that a database which cannot
  // write refuses: PgStore::Ping's probe.
  Status WriteProbe();

  // Locked FOR UPDATE (in id order) and remembered as locked by this
  // transaction; the same round trip asks which of them a dependency not
  // yet met waits for (workflow_sql::kAwaitedJobs, for MarkDependencyMet).
  // GetJob is GetJobs of one id.
  Result<Job> GetJob(const std::string& id) override;
  Result<std::vector<Job>> GetJobs(const std::vector<std::string>& ids) override;

  // Deferred (it rides with the next statement) when the job has no
  // idempotency key: then nothing can conflict with it.
  Result<InsertOutcome> InsertJob(const Job& job, const HistoryEntry& created) override;
  // One statement for the batch; a taken key is then looked up on its own.
  Result<std::vector<InsertOutcome>> InsertJobs(const std::vector<NewJob>& jobs) override;
  // The four reads as one pipeline.
  Result<ClaimReads> ReadForClaim(const std::string& queue_name,
                                  std::span<const std::string> worker_ids, Instant now,
                                  int limit) override;
  Status ApplyChange(const Change& change) override;
  // One set-based guarded update per kind of change, pipelined (one round
  // trip for the batch).
  Result<std::vector<bool>> ApplyChanges(const std::vector<Change>& changes) override;

  Result<std::vector<Job>> SelectClaimable(const std::string& queue_name, Instant now,
                                           int limit) override;
  Result<std::vector<Job>> SelectDueScheduled(const std::optional<std::string>& queue_name,
                                              Instant now, int limit) override;
  Result<std::vector<Job>> SelectExpiredLeases(Instant now, int limit) override;
  Result<std::vector<Job>> SelectPastDeadline(Instant now, int limit) override;
  Result<std::vector<Job>> SelectHeldBy(const std::string& worker_id, int limit) override;
  Result<std::vector<Job>> SelectDeadLetters(const DeadLetterSelection& sel) override;
  Result<long long> CountDeadLetters(const DeadLetterSelection& sel) override;
  Result<std::vector<FingerprintBackfill>> SelectUnfingerprinted(int limit) override;
  Result<long long> SetErrorFingerprints(const std::vector<FingerprintBackfill>& rows) override;

  Result<long long> DeleteJobs(const std::vector<std::string>& ids) override;
  Result<std::vector<std::string>> SelectRetentionExpired(const std::string& queue_name,
                                                          JobStatus status, Instant before,
                                                          int limit) override;

  Result<QueueConfig> EnsureQueue(const std::string& name, Instant now, size_t max_queues) override;
  Result<std::optional<QueueConfig>> LockQueue(const std::string& name) override;
  Status PutQueue(const QueueConfig& config) override;
  Status DeleteQueue(const std::string& name, bool delete_jobs) override;
  Result<std::optional<WorkerInfo>> LockWorker(const std::string& id) override;
  Status PutWorker(const WorkerInfo& worker) override;
  Result<long long> DeleteOfflineWorkers(Instant before, int limit) override;

  Status InsertWebhook(const Webhook& webhook, size_t max_webhooks) override;
  Status UpdateWebhook(const Webhook& webhook) override;
  Status DeleteWebhook(const std::string& id) override;
  Status InsertDelivery(const WebhookDelivery& delivery) override;
  Status UpdateDelivery(const WebhookDelivery& delivery) override;
  Result<std::vector<WebhookDelivery>> SelectDueDeliveries(Instant now, int limit) override;
  Result<long long> DeleteFinishedDeliveries(Instant before, int limit) override;
  // Takes the schedule-creation lock first (kScheduleCreationLockKey): the
  // count is exact until the commit.
  Result<long long> CountSchedules() override;
  Status InsertOperation(const OperationRecord& op, size_t max_unfinished) override;
  Status UpdateOperation(const Operation& op) override;
  Result<std::vector<OperationRecord>> SelectDueOperations(Instant now, int limit) override;
  Result<long long> DeleteFinishedOperationsBefore(Instant before, int limit) override;
  Result<SelectedJobs> SelectJobsAfter(const JobSelection& sel) override;
  // pg_autoredrive_writes.cc
  Status InsertAutoredrive(const AutoredriveRecord& rec) override;
  Status UpdateAutoredrivePolicy(const AutoredrivePolicy& policy) override;
  Status UpdateAutoredriveState(const std::string& queue_name,
                                const AutoredriveState& state) override;
  Status DeleteAutoredrive(const std::string& queue_name) override;
  Result<long long> CountAutoRevivals(const std::vector<std::string>& ids) override;
  Status InsertSchedule(const Schedule& schedule) override;
  Status UpdateSchedule(const Schedule& schedule) override;
  Status DeleteSchedule(const std::string& id) override;
  Result<std::vector<Schedule>> SelectDueSchedules(Instant now, int limit) override;
  Status InsertScheduleRun(const ScheduleRun& run) override;
  Result<long long> DeleteOldScheduleRuns(int keep_per_schedule, Instant before,
                                          int limit) override;
  Status RecordThroughput(const ThroughputSample& sample) override;
  Result<long long> DeleteThroughputBefore(Instant before) override;
  Result<long long> DeleteHourlyThroughputBefore(Instant before) override;
  // pg_audit_writes.cc
  Status InsertAuditEntry(const AuditEntry& entry) override;
  Result<long long> DeleteAuditBefore(Instant before, int limit) override;
  Result<bool> ReserveIdempotencyKey(const IdempotencyRecord& record) override;
  Status CompleteIdempotencyKey(const IdempotencyRecord& record) override;
  Status DeleteIdempotencyKey(const std::string& scope, const std::string& key) override;
  Result<long long> DeleteExpiredIdempotencyKeys(Instant now, int limit) override;
  // pg_api_key_writes.cc
  Status InsertApiKey(const StoredApiKey& key) override;
  Status UpdateApiKey(const StoredApiKey& key) override;
  Status RecordApiKeyUse(const std::vector<ApiKeyUse>& uses) override;

  Result<std::string> EnsureTokenSecret(const std::string& candidate) override;
  Result<long long> InsertRefreshToken(const RefreshToken& token, size_t max_live_per_key) override;
  Result<std::optional<RefreshToken>> EndRefreshToken(const std::string& token_hash, Instant now,
                                                      std::string_view reason) override;
  Result<long long> EndRefreshTokensOfKey(const std::string& key_id, Instant now,
                                          std::string_view reason) override;
  Result<long long> DeleteOldRefreshTokens(Instant before, int limit) override;
  // pg_workflow_writes.cc
  Status InsertWorkflow(const Workflow& workflow,
                        const std::vector<WorkflowMember>& members) override;
  Result<long long> InsertDependencies(const std::vector<JobDependency>& edges) override;
  // No statement when the job's locking read found no dependency that is
  // not yet met waiting for it (GetJob, GetJobs): the common case, which
  // would otherwise cost a round trip per completed job.
  Result<long long> MarkDependencyMet(const std::string& job_id) override;
  Result<std::vector<BlockedDependent>> SelectBlockedDependents(const std::string& job_id) override;
  Result<std::vector<Job>> SelectWorkflowJobs(const std::string& workflow_id,
                                              const std::vector<JobStatus>& statuses,
                                              int limit) override;

 private:
  // The outcome of an insert statement's result `r` for `job`.
  Result<InsertOutcome> Inserted(const Job& job, const PgResult& r);
  // The outcome for `job`, which was not inserted: its key is taken.
  Result<InsertOutcome> TakenKey(const Job& job);
  // ApplyChanges as one guarded update per change (pipelined).
  Result<std::vector<bool>> ApplyEach(const std::vector<Change>& changes);
  // ApplyChanges of changes whose guards hold (GuardHolds), deferred.
  Status DeferChanges(const std::vector<Change>& changes);
  // `jobs`, which a locking read of this transaction returned, remembered
  // as locked as they are.
  Result<std::vector<Job>> Locked(Result<std::vector<Job>> jobs);
  // True when change's job is locked by this transaction and still as
  // change.before says (its status and lease): the guard holds.
  bool GuardHolds(const Change& change) const;
  // After a write of `job` (the row stays locked until the end).
  void Wrote(const Job& job);
  // Defers the upsert of count_deltas_' sums to this backend's shard of
  // job_counts (sql::kAddToCounts; pg_schema.cc, version 24) and clears them.
  void DeferCounts();
  // Counts the rows of a delete's (queue, status, count) result `r` out;
  // returns how many jobs went.
  Result<long long> CountDeleted(const PgResult& r);
  // OK while the transaction is open and ours to use.
  Status CheckOpen() const;
  Status Control(const char* sql);

  // The jobs this transaction holds locked, with the status and lease the
  // guard compares (as read, or as this transaction last wrote them).
  struct LockedRow {
    JobStatus status;
    std::optional<std::string> lease_id;
    // Whether a dependency not yet met waits for the job, as read after
    // the row was locked; unknown (nullopt) when not read since, or when
    // this transaction added dependencies on it. While the row is locked
    // no other transaction can add one that is not met: InsertDependencies'
    // caller locks the jobs depended on, and an edge inserted after this
    // transaction commits sees the job completed and is met at insert.
    std::optional<bool> awaited;
  };
  std::unordered_map<std::string, LockedRow> locked_;
  // Every write of a job's row adds its delta; written with the COMMIT.
  JobCountDeltas count_deltas_;
  bool committed_ = false;
  std::optional<int64_t> webhooks_version_;
  PgWriteHealth& health_;
};

}  // namespace redrive::store::postgres
