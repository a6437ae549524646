// PgReads: every ReadTx operation, implemented once over a PgConnection and
// shared by the read transaction (Base = ReadTx) and the write transaction
// (Base = WriteTx, which sees its own writes). In a write transaction
// (`locking`), GetWebhook, GetDelivery and the other Get* of one record
// lock the rows they return FOR UPDATE (store.h, the locking contract);
// PgWriteTx locks its jobs itself (GetJob, GetJobs); GetQueue and GetWorker
// never lock.
//
// Thread-safety: none; used by the one thread that owns the transaction.
#pragma once

#include <string>
#include <vector>

#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres {

template <typename Base>
class PgReads : public Base {
 public:
  Result<Job> GetJob(const std::string& id) override;
  Result<std::optional<std::string>> FindIdempotencyKey(const std::string& key) override;
  Result<std::map<std::string, std::string>> FindIdempotencyKeys(
      const std::vector<std::string>& keys) override;
  Result<std::vector<Job>> ListJobs(const JobFilter& f, bool with_payload) override;
  Result<std::vector<Job>> ListDeadLetters(const JobFilter& f) override;
  Result<std::vector<DeadLetterGroup>> SummarizeDeadLetters(const JobFilter& f) override;
  Result<std::vector<Job>> GetJobs(const std::vector<std::string>& ids) override;
  Result<std::vector<HistoryEntry>> GetHistory(const std::string& job_id) override;
  Result<StatusCounts> CountJobs(const std::optional<std::string>& queue_name) override;
  Result<std::optional<Instant>> OldestDeadletterAt(const std::string& queue_name) override;
  Result<std::optional<Instant>> OldestWaitingCreatedAt(const std::string& queue_name) override;
  Result<std::optional<QueueConfig>> GetQueue(const std::string& name) override;
  Result<std::vector<QueueConfig>> ListQueues() override;
  Result<std::optional<WorkerInfo>> GetWorker(const std::string& id) override;
  Result<std::vector<WorkerInfo>> ListWorkers(int limit, int offset) override;
  Result<std::optional<Instant>> NextScheduledAt() override;
  Result<std::optional<Instant>> NextLeaseExpiry() override;
  Result<std::optional<Instant>> NextDeadline() override;
  Result<std::vector<Webhook>> ListWebhooks() override;
  Result<Webhook> GetWebhook(const std::string& id) override;
  Result<std::vector<WebhookDelivery>> ListDeliveries(const DeliveryFilter& f) override;
  Result<WebhookDelivery> GetDelivery(const std::string& id) override;
  Result<std::optional<Instant>> NextDeliveryDue() override;
  Result<int64_t> WebhooksVersion() override;
  Result<Schedule> GetSchedule(const std::string& id) override;
  Result<std::vector<Schedule>> ListSchedules(const ScheduleFilter& f) override;
  Result<long long> CountSchedules() override;
  Result<std::vector<ScheduleRun>> ListScheduleRuns(const std::string& schedule_id, int limit,
                                                    int offset) override;
  Result<std::optional<Instant>> NextScheduleDue() override;
  Result<OperationRecord> GetOperation(const std::string& id) override;
  Result<std::vector<OperationRecord>> ListOperations(int limit, int offset) override;
  Result<long long> CountSelectedJobs(const JobSelection& sel) override;
  Result<std::optional<Instant>> NextOperationDue() override;
  Result<std::optional<AutoredriveRecord>> GetAutoredrive(const std::string& queue_name) override;
  Result<std::vector<AutoredriveRecord>> ListAutoredrive() override;
  Result<std::vector<ThroughputPoint>> ReadThroughput(const std::optional<std::string>& queue_name,
                                                      Instant after) override;
  Result<JobCounts> SumHourlyThroughput(const std::optional<std::string>& queue_name,
                                        Instant from_hour) override;
  Result<std::vector<AuditEntry>> ListAudit(const AuditFilter& f) override;
  Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(const std::string& scope,
                                                                const std::string& key) override;
  Result<std::vector<StoredApiKey>> ListApiKeys() override;
  // Locks the row in a write transaction (a read-modify-write).
  Result<StoredApiKey> GetApiKey(const std::string& id) override;
  Result<int64_t> ApiKeysVersion() override;
  Result<WorkflowView> GetWorkflow(const std::string& id) override;
  Result<std::vector<WorkflowView>> ListWorkflows(const WorkflowFilter& f) override;
  Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(const std::string& workflow_id, int limit,
                                                       int offset) override;
  Result<std::optional<WorkflowMember>> GetWorkflowMember(const std::string& job_id) override;
  Result<JobDependencies> GetJobDependencies(const std::string& job_id, int limit) override;
  Result<std::optional<DependencyState>> GetDependencyState(const std::string& job_id) override;
  Result<bool> DependsOnTransitively(const std::string& job_id, const std::string& on_job_id,
                                     size_t max_jobs) override;
  Result<std::optional<std::string>> GetTokenSecret() override;
  Result<std::vector<RefreshToken>> ListRefreshTokens(const std::string& key_id) override;
  Result<std::optional<RefreshToken>> GetRefreshToken(const std::string& token_hash) override;

 protected:
  // `conn` must outlive this object.
  PgReads(PgConnection& conn, bool locking) : conn_(conn), locking_(locking) {}
  PgConnection& conn() const { return conn_; }

 private:
  PgConnection& conn_;
  const bool locking_;
};

extern template class PgReads<ReadTx>;
extern template class PgReads<WriteTx>;

// Reads every row of `r` as a job (REDRIVE_PG_JOB_COLUMNS).
Result<std::vector<Job>> PgJobs(const PgResult& r);
// The first column of the first row as an optional time (no row: nullopt).
std::optional<Instant> PgOptTime(const PgResult& r);

}  // namespace redrive::store::postgres
