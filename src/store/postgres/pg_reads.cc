#include "store/postgres/pg_reads.h"

#include "store/postgres/pg_api_key_sql.h"
#include "store/postgres/pg_audit_sql.h"
#include "store/postgres/pg_autoredrive_sql.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_operation_sql.h"
#include "store/postgres/pg_row_mapping.h"
#include "store/postgres/pg_schedule_sql.h"
#include "store/postgres/pg_throughput_sql.h"
#include "store/postgres/pg_token_sql.h"
#include "store/postgres/pg_webhook_sql.h"
#include "store/postgres/pg_workflow_sql.h"

namespace redrive::store::postgres {
namespace {

constexpr char kListQueues[] =
    "SELECT " REDRIVE_PG_QUEUE_COLUMNS " FROM redrive.queues ORDER BY queue_name";
constexpr char kListWorkers[] = "SELECT " REDRIVE_PG_WORKER_COLUMNS
                                " FROM redrive.workers ORDER BY registered_at, id"
                                " LIMIT $1 OFFSET $2";

// Runs a fixed query of one text parameter (or none).
Result<PgResult> Run(PgConnection& conn, const char* sql, const std::string* arg = nullptr) {
  PgParams p;
  if (arg != nullptr) p.AddRef(*arg);
  return conn.ExecPrepared(sql, p);
}

Result<std::optional<Instant>> OptTimeOf(Result<PgResult> r) {
  if (!r.ok()) return r.status();
  return PgOptTime(*r);
}

}  // namespace

Result<std::vector<Job>> PgJobs(const PgResult& r) {
  std::vector<Job> jobs;
  jobs.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) {
    REDRIVE_ASSIGN_OR_RETURN(Job job, ReadPgJob(r, i));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::optional<Instant> PgOptTime(const PgResult& r) {
  if (r.rows() == 0) return std::nullopt;
  return r.OptTime(0, 0);
}

template <typename Base>
Result<Job> PgReads<Base>::GetJob(const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, Run(conn_, sql::kGetJob, &id));
  if (r.rows() == 0) return Status::NotFound("job " + id + " not found");
  return ReadPgJob(r, 0);
}

template <typename Base>
Result<std::map<std::string, std::string>> PgReads<Base>::FindIdempotencyKeys(
    const std::vector<std::string>& keys) {
  std::map<std::string, std::string> out;
  if (keys.empty()) return out;
  PgParams p;
  p.AddTextArray(keys);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn_.ExecPrepared(sql::kFindIdempotencyKeys, p));
  for (int i = 0; i < r.rows(); ++i) out.emplace(r.String(i, 0), r.String(i, 1));
  return out;
}

template <typename Base>
Result<std::optional<std::string>> PgReads<Base>::FindIdempotencyKey(const std::string& key) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, Run(conn_, sql::kFindIdempotencyKey, &key));
  if (r.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.String(0, 0));
}

template <typename Base>
Result<std::vector<Job>> PgReads<Base>::ListJobs(const JobFilter& f, bool with_payload) {
  sql::BuiltQuery q = sql::ListJobs(f, with_payload);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn_.ExecParams(q.sql, q.params));
  return PgJobs(r);
}

template <typename Base>
Result<std::vector<Job>> PgReads<Base>::ListDeadLetters(const JobFilter& f) {
  sql::BuiltQuery q = sql::ListDeadLetters(f);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn_.ExecParams(q.sql, q.params));
  return PgJobs(r);
}

template <typename Base>
Result<std::vector<DeadLetterGroup>> PgReads<Base>::SummarizeDeadLetters(const JobFilter& f) {
  sql::BuiltQuery q = sql::SummarizeDeadLetters(f);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn_.ExecParams(q.sql, q.params));
  std::vector<DeadLetterGroup> groups;
  for (int i = 0; i < r.rows(); ++i) {
    DeadLetterGroup g;
    g.queue_name = r.String(i, 0);
    std::optional<DeadReason> reason = ParseDeadReason(r.Text(i, 1));
    if (!reason) return Status::Internal("unknown dead_reason in store: " + r.String(i, 1));
    g.dead_reason = *reason;
    g.fingerprint = r.OptString(i, 2);
    g.error = r.OptString(i, 3);
    g.count = r.Int64(i, 4);
    g.oldest_deadlettered_at = r.Time(i, 5);
    g.newest_deadlettered_at = r.Time(i, 6);
    groups.push_back(std::move(g));
  }
  return groups;
}

template <typename Base>
Result<std::vector<Job>> PgReads<Base>::GetJobs(const std::vector<std::string>& ids) {
  if (ids.empty()) return std::vector<Job>();
  // One statement for any number of ids: the list travels as one array.
  PgParams p;
  p.AddTextArray(ids);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn_.ExecPrepared(sql::kGetJobs, p));
  return PgJobs(r);
}

template <typename Base>
Result<std::vector<HistoryEntry>> PgReads<Base>::GetHistory(const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, Run(conn_, sql::kGetHistory, &job_id));
  std::vector<HistoryEntry> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadPgHistory(r, i));
  return out;
}

template <typename Base>
Result<StatusCounts> PgReads<Base>::CountJobs(const std::optional<std::string>& queue_name) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, queue_name ? Run(conn_, sql::kCountQueue, &*queue_name)
                                                  : Run(conn_, sql::kCountAll));
  StatusCounts counts;
  for (int i = 0; i < r.rows(); ++i) {
    std::optional<JobStatus> status = ParseJobStatus(r.Text(i, 0));
    if (!status) return Status::Internal("unknown job status in store: " + r.String(i, 0));
    counts.of(*status) += r.Int64(i, 1);
  }
  return counts;
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::OldestDeadletterAt(const std::string& queue_name) {
  return OptTimeOf(Run(conn_, sql::kOldestDeadletter, &queue_name));
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::OldestWaitingCreatedAt(
    const std::string& queue_name) {
  return OptTimeOf(Run(conn_, sql::kOldestWaiting, &queue_name));
}

template <typename Base>
Result<std::optional<QueueConfig>> PgReads<Base>::GetQueue(const std::string& name) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, Run(conn_, kGetPgQueue, &name));
  if (r.rows() == 0) return std::optional<QueueConfig>();
  return std::optional<QueueConfig>(ReadPgQueue(r, 0));
}

template <typename Base>
Result<std::vector<QueueConfig>> PgReads<Base>::ListQueues() {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, Run(conn_, kListQueues));
  std::vector<QueueConfig> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadPgQueue(r, i));
  return out;
}

template <typename Base>
Result<std::optional<WorkerInfo>> PgReads<Base>::GetWorker(const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, Run(conn_, kGetPgWorker, &id));
  if (r.rows() == 0) return std::optional<WorkerInfo>();
  return std::optional<WorkerInfo>(ReadPgWorker(r, 0));
}

template <typename Base>
Result<std::vector<WorkerInfo>> PgReads<Base>::ListWorkers(int limit, int offset) {
  PgParams p;
  p.Add(limit);
  p.Add(offset);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn_.ExecPrepared(kListWorkers, p));
  std::vector<WorkerInfo> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadPgWorker(r, i));
  return out;
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::NextScheduledAt() {
  return OptTimeOf(Run(conn_, sql::kNextScheduled));
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::NextLeaseExpiry() {
  return OptTimeOf(Run(conn_, sql::kNextLeaseExpiry));
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::NextDeadline() {
  return OptTimeOf(Run(conn_, sql::kNextDeadline));
}

template <typename Base>
Result<std::vector<Webhook>> PgReads<Base>::ListWebhooks() {
  return webhook_sql::ListWebhooks(conn_);
}

template <typename Base>
Result<Webhook> PgReads<Base>::GetWebhook(const std::string& id) {
  return webhook_sql::GetWebhook(conn_, id, locking_);
}

template <typename Base>
Result<std::vector<WebhookDelivery>> PgReads<Base>::ListDeliveries(const DeliveryFilter& f) {
  return webhook_sql::ListDeliveries(conn_, f);
}

template <typename Base>
Result<WebhookDelivery> PgReads<Base>::GetDelivery(const std::string& id) {
  return webhook_sql::GetDelivery(conn_, id, locking_);
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::NextDeliveryDue() {
  return webhook_sql::NextDeliveryDue(conn_);
}

template <typename Base>
Result<int64_t> PgReads<Base>::WebhooksVersion() {
  return webhook_sql::WebhooksVersion(conn_);
}

template <typename Base>
Result<std::vector<ThroughputPoint>> PgReads<Base>::ReadThroughput(
    const std::optional<std::string>& queue_name, Instant after) {
  return throughput_sql::ReadThroughput(conn_, queue_name, after);
}

template <typename Base>
Result<JobCounts> PgReads<Base>::SumHourlyThroughput(const std::optional<std::string>& queue_name,
                                                     Instant from_hour) {
  return throughput_sql::SumHourly(conn_, queue_name, from_hour);
}

template <typename Base>
Result<std::vector<AuditEntry>> PgReads<Base>::ListAudit(const AuditFilter& f) {
  return audit_sql::ListAudit(conn_, f);
}

template <typename Base>
Result<std::optional<IdempotencyRecord>> PgReads<Base>::GetIdempotencyRecord(
    const std::string& scope, const std::string& key) {
  return audit_sql::GetIdempotencyRecord(conn_, scope, key);
}

template <typename Base>
Result<std::vector<StoredApiKey>> PgReads<Base>::ListApiKeys() {
  return api_key_sql::ListApiKeys(conn_);
}

template <typename Base>
Result<StoredApiKey> PgReads<Base>::GetApiKey(const std::string& id) {
  return api_key_sql::GetApiKey(conn_, id, locking_);
}

template <typename Base>
Result<int64_t> PgReads<Base>::ApiKeysVersion() {
  return api_key_sql::ApiKeysVersion(conn_);
}

template <typename Base>
Result<WorkflowView> PgReads<Base>::GetWorkflow(const std::string& id) {
  return workflow_sql::GetWorkflow(conn_, id);
}

template <typename Base>
Result<std::vector<WorkflowView>> PgReads<Base>::ListWorkflows(const WorkflowFilter& f) {
  return workflow_sql::ListWorkflows(conn_, f);
}

template <typename Base>
Result<std::vector<WorkflowJobRow>> PgReads<Base>::ListWorkflowJobs(const std::string& workflow_id,
                                                                    int limit, int offset) {
  return workflow_sql::ListWorkflowJobs(conn_, workflow_id, limit, offset);
}

template <typename Base>
Result<std::optional<WorkflowMember>> PgReads<Base>::GetWorkflowMember(const std::string& job_id) {
  return workflow_sql::GetWorkflowMember(conn_, job_id);
}

template <typename Base>
Result<JobDependencies> PgReads<Base>::GetJobDependencies(const std::string& job_id, int limit) {
  return workflow_sql::GetJobDependencies(conn_, job_id, limit);
}

template <typename Base>
Result<std::optional<DependencyState>> PgReads<Base>::GetDependencyState(
    const std::string& job_id) {
  return workflow_sql::GetDependencyState(conn_, job_id);
}

template <typename Base>
Result<bool> PgReads<Base>::DependsOnTransitively(const std::string& job_id,
                                                  const std::string& on_job_id, size_t max_jobs) {
  return workflow_sql::DependsOnTransitively(conn_, job_id, on_job_id, max_jobs);
}

template <typename Base>
Result<std::optional<std::string>> PgReads<Base>::GetTokenSecret() {
  return token_sql::GetTokenSecret(conn_);
}

template <typename Base>
Result<std::vector<RefreshToken>> PgReads<Base>::ListRefreshTokens(const std::string& key_id) {
  return token_sql::ListRefreshTokens(conn_, key_id);
}

template <typename Base>
Result<std::optional<RefreshToken>> PgReads<Base>::GetRefreshToken(const std::string& token_hash) {
  return token_sql::GetRefreshToken(conn_, token_hash);
}

template <typename Base>
Result<OperationRecord> PgReads<Base>::GetOperation(const std::string& id) {
  return operation_sql::GetOperation(conn_, id, locking_);
}

template <typename Base>
Result<std::vector<OperationRecord>> PgReads<Base>::ListOperations(int limit, int offset) {
  return operation_sql::ListOperations(conn_, limit, offset);
}

template <typename Base>
Result<long long> PgReads<Base>::CountSelectedJobs(const JobSelection& sel) {
  return operation_sql::CountSelectedJobs(conn_, sel);
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::NextOperationDue() {
  return operation_sql::NextOperationDue(conn_);
}

template <typename Base>
Result<std::optional<AutoredriveRecord>> PgReads<Base>::GetAutoredrive(
    const std::string& queue_name) {
  return autoredrive_sql::GetAutoredrive(conn_, queue_name, locking_);
}

template <typename Base>
Result<std::vector<AutoredriveRecord>> PgReads<Base>::ListAutoredrive() {
  return autoredrive_sql::ListAutoredrive(conn_);
}

template <typename Base>
Result<Schedule> PgReads<Base>::GetSchedule(const std::string& id) {
  return schedule_sql::GetSchedule(conn_, id, locking_);
}

template <typename Base>
Result<std::vector<Schedule>> PgReads<Base>::ListSchedules(const ScheduleFilter& f) {
  return schedule_sql::ListSchedules(conn_, f);
}

template <typename Base>
Result<long long> PgReads<Base>::CountSchedules() {
  return schedule_sql::CountSchedules(conn_);
}

template <typename Base>
Result<std::vector<ScheduleRun>> PgReads<Base>::ListScheduleRuns(const std::string& schedule_id,
                                                                 int limit, int offset) {
  return schedule_sql::ListScheduleRuns(conn_, schedule_id, limit, offset);
}

template <typename Base>
Result<std::optional<Instant>> PgReads<Base>::NextScheduleDue() {
  return schedule_sql::NextScheduleDue(conn_);
}

template class PgReads<ReadTx>;
template class PgReads<WriteTx>;

}  // namespace redrive::store::postgres
