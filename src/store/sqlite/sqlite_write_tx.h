// SqliteWriteTx: the one write transaction of a SqliteStore. It holds the
// store's writer mutex (and the database's write lock, taken by BEGIN
// IMMEDIATE) from BeginWrite until it is destroyed, so writes of this
// process are serialized and writers of other processes wait (busy timeout).
//
// Error contract: an operation that fails part-way may leave part of its
// rows written inside the transaction; the caller rolls back to its savepoint
// (group commit) or drops the transaction. SQLite itself rolls the whole
// transaction back after some errors (e.g. disk full): every later savepoint
// operation and Commit then fail instead of silently running outside a
// transaction.
//
// Thread-safety: none; used by one thread. Must not outlive its store.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/job_count_deltas.h"
#include "store/sqlite/commit_health.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/sqlite_reads.h"
#include "store/sqlite/wal_sync.h"
#include "store/store.h"

namespace redrive::store::sqlite {

class SqliteWriteTx final : public SqliteReads<WriteTx> {
 public:
  // Starts the transaction on `conn` (BEGIN IMMEDIATE); `lock` holds the
  // writer mutex and is released when the transaction is destroyed. The
  // outcomes of BEGIN and COMMIT are recorded in `health` (which must
  // outlive the transaction); once it is stopped, Begin refuses. With
  // `wal_sync` (the pipelined store; it must outlive the transaction),
  // CommitWithoutSync returns before the WAL is synced and Commit syncs it.
  static Result<std::unique_ptr<SqliteWriteTx>> Begin(Connection& conn,
                                                      std::unique_lock<std::mutex> lock,
                                                      CommitHealth& health,
                                                      WalSync* wal_sync = nullptr);
  ~SqliteWriteTx() override;  // rolls back unless committed

  Status Savepoint() override;
  Status ReleaseSavepoint() override;
  Status RollbackToSavepoint() override;
  Status Commit() override;
  // Writes the transaction's job_counts deltas, then commits.
  Status CommitWithoutSync() override;
  // SqliteReads' counters plus this transaction's deltas not yet written.
  Result<StatusCounts> CountJobs(const std::optional<std::string>& queue_name) override;

  Result<InsertOutcome> InsertJob(const Job& job, const HistoryEntry& created) override;
  Status ApplyChange(const Change& change) override;

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
  // The write lock is the database's: a locking read is a plain read.
  Result<std::optional<QueueConfig>> LockQueue(const std::string& name) override {
    return GetQueue(name);
  }
  Status PutQueue(const QueueConfig& config) override;
  Status DeleteQueue(const std::string& name, bool delete_jobs) override;
  Result<std::optional<WorkerInfo>> LockWorker(const std::string& id) override {
    return GetWorker(id);
  }
  Status PutWorker(const WorkerInfo& worker) override;
  Result<long long> DeleteOfflineWorkers(Instant before, int limit) override;

  Status InsertWebhook(const Webhook& webhook, size_t max_webhooks) override;
  Status UpdateWebhook(const Webhook& webhook) override;
  Status DeleteWebhook(const std::string& id) override;
  Status InsertDelivery(const WebhookDelivery& delivery) override;
  Status UpdateDelivery(const WebhookDelivery& delivery) override;
  Result<std::vector<WebhookDelivery>> SelectDueDeliveries(Instant now, int limit) override;
  Result<long long> DeleteFinishedDeliveries(Instant before, int limit) override;
  Status InsertOperation(const OperationRecord& op, size_t max_unfinished) override;
  Status UpdateOperation(const Operation& op) override;
  Result<std::vector<OperationRecord>> SelectDueOperations(Instant now, int limit) override;
  Result<long long> DeleteFinishedOperationsBefore(Instant before, int limit) override;
  Result<SelectedJobs> SelectJobsAfter(const JobSelection& sel) override;
  // sqlite_autoredrive_writes.cc
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
  // sqlite_audit_writes.cc
  Status InsertAuditEntry(const AuditEntry& entry) override;
  Result<long long> DeleteAuditBefore(Instant before, int limit) override;
  Result<bool> ReserveIdempotencyKey(const IdempotencyRecord& record) override;
  Status CompleteIdempotencyKey(const IdempotencyRecord& record) override;
  Status DeleteIdempotencyKey(const std::string& scope, const std::string& key) override;
  Result<long long> DeleteExpiredIdempotencyKeys(Instant now, int limit) override;
  // sqlite_api_key_writes.cc
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
  // sqlite_workflow_writes.cc
  Status InsertWorkflow(const Workflow& workflow,
                        const std::vector<WorkflowMember>& members) override;
  Result<long long> InsertDependencies(const std::vector<JobDependency>& edges) override;
  Result<long long> MarkDependencyMet(const std::string& job_id) override;
  Result<std::vector<BlockedDependent>> SelectBlockedDependents(const std::string& job_id) override;
  Result<std::vector<Job>> SelectWorkflowJobs(const std::string& workflow_id,
                                              const std::vector<JobStatus>& statuses,
                                              int limit) override;

 private:
  SqliteWriteTx(Connection& conn, std::unique_lock<std::mutex> lock, CommitHealth& health,
                WalSync* wal_sync)
      : SqliteReads(conn), lock_(std::move(lock)), health_(health), wal_sync_(wal_sync) {}

  // OK while the transaction SQLite holds is still ours to use (a rollback
  // SQLite made by itself is recorded in health_ as a failed commit).
  Status CheckOpen();
  // Records the connection's latest error in health_; returns what to report.
  Status RecordFailure(const Status& st);
  // What a change's writes need of its job's row: its seq, which keys them
  // all, and, for a change that writes history, the last segment of it
  // (`last_seg`, `last_entries`; 0 and empty for a job without history).
  struct ChangeTarget {
    int64_t seq = 0;
    int64_t last_seg = 0;
    std::string last_entries;
  };
  // Reads it with one lookup of the job's id; nullopt if there is no such job.
  Result<std::optional<ChangeTarget>> FindChangeTarget(const std::string& job_id,
                                                       bool with_history);
  // Appends `h` (its id checked by the caller) to the history of the job
  // whose row and last segment are `target` (history_codec.h; the row is
  // authoritative over h.job_id): to that segment, in place, when it fits,
  // else as a new one.
  Status AppendHistory(const HistoryEntry& h, ChangeTarget& target);
  // Writes segment `seg` of the job whose row is `seq`, whole.
  Status WriteHistorySegment(int64_t seq, int64_t seg, const std::string& entries);
  Status InsertTags(const std::string& job_id, const Tags& tags);
  // Adds `queue` to queue_names if it is not there (sql::kInternQueue):
  // before a job's row is written into that queue.
  Status InternQueue(const std::string& queue);
  // Writes count_deltas_' sums to job_counts (single-row statements: one
  // that writes a row of one table needs no statement journal) and clears
  // them; CommitWithoutSync calls it before COMMIT.
  Status WriteCounts();

  // Every write of a job's row (InsertJob, ApplyChange, DeleteJobs,
  // DeleteQueue) adds its delta; WriteCounts writes them with the commit.
  // Not triggers: a statement that fires one writes two tables, so SQLite
  // gives it a statement journal, whose truncation at the statement's end
  // walks the transaction's whole sub-journal — with the group committer's
  // savepoints that made a batch of 100 claims quadratic (docs/benchmarks.md).
  JobCountDeltas count_deltas_;
  std::unique_lock<std::mutex> lock_;
  CommitHealth& health_;
  WalSync* const wal_sync_;       // null: COMMIT itself syncs (synchronous=FULL)
  int64_t changes_at_begin_ = 0;  // sqlite3_total_changes64 after BEGIN
  bool committed_ = false;
};

}  // namespace redrive::store::sqlite
