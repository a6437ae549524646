#include "store/sqlite/sqlite_reads.h"

#include <algorithm>

#include "core/tags_json.h"
#include "store/sqlite/api_key_sql.h"
#include "store/sqlite/audit_sql.h"
#include "store/sqlite/autoredrive_sql.h"
#include "store/sqlite/history_codec.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/operation_sql.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/row_mapping.h"
#include "store/sqlite/schedule_sql.h"
#include "store/sqlite/throughput_sql.h"
#include "store/sqlite/token_sql.h"
#include "store/sqlite/webhook_sql.h"
#include "store/sqlite/workflow_sql.h"

namespace redrive::store::sqlite {
namespace {

constexpr char kGetQueue[] = "SELECT " REDRIVE_QUEUE_COLUMNS " FROM queues WHERE queue_name = ?1";
constexpr char kListQueues[] = "SELECT " REDRIVE_QUEUE_COLUMNS " FROM queues ORDER BY queue_name";
constexpr char kGetWorker[] = "SELECT " REDRIVE_WORKER_COLUMNS " FROM workers WHERE id = ?1";
constexpr char kListWorkers[] =
    "SELECT " REDRIVE_WORKER_COLUMNS " FROM workers ORDER BY registered_at, id LIMIT ?1 OFFSET ?2";

}  // namespace

template <typename Base>
Result<Job> SqliteReads<Base>::GetJob(const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(sql::kGetJob));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("job " + id + " not found");
  return ReadJob(stmt);
}

template <typename Base>
Result<std::optional<std::string>> SqliteReads<Base>::FindIdempotencyKey(const std::string& key) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(sql::kFindIdempotencyKey));
  stmt.Bind(1, key);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(stmt.String(0));
}

template <typename Base>
Result<std::vector<Job>> SqliteReads<Base>::ListJobs(const JobFilter& f, bool with_payload) {
  return RunJobQuery(conn_, sql::ListJobs(f, with_payload));
}

template <typename Base>
Result<std::vector<Job>> SqliteReads<Base>::ListDeadLetters(const JobFilter& f) {
  return RunJobQuery(conn_, sql::ListDeadLetters(f));
}

template <typename Base>
Result<std::vector<DeadLetterGroup>> SqliteReads<Base>::SummarizeDeadLetters(const JobFilter& f) {
  sql::BuiltQuery q = sql::SummarizeDeadLetters(f);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(q.sql));
  BindParams(stmt, q);
  std::vector<DeadLetterGroup> groups;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return groups;
    DeadLetterGroup g;
    g.queue_name = stmt.String(0);
    std::optional<DeadReason> reason = ParseDeadReason(stmt.Text(1));
    if (!reason) return Status::Internal("unknown dead_reason in store: " + stmt.String(1));
    g.dead_reason = *reason;
    g.fingerprint = stmt.OptString(2);
    g.error = stmt.OptString(3);
    g.count = stmt.Int64(4);
    g.oldest_deadlettered_at = stmt.Time(5);
    g.newest_deadlettered_at = stmt.Time(6);
    groups.push_back(std::move(g));
  }
}

template <typename Base>
Result<std::vector<Job>> SqliteReads<Base>::GetJobs(const std::vector<std::string>& ids) {
  if (ids.empty()) return std::vector<Job>();
  // One statement for any number of ids: the list travels as a JSON array.
  std::string ids_json = EncodeStringArrayJson(ids);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(sql::kGetJobs));
  stmt.Bind(1, ids_json);
  return CollectJobs(stmt);
}

template <typename Base>
Result<std::vector<HistoryEntry>> SqliteReads<Base>::GetHistory(const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(sql::kGetHistory));
  stmt.Bind(1, job_id);
  std::vector<HistoryEntry> entries;
  size_t index = 0;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    REDRIVE_RETURN_IF_ERROR(
        history::DecodeSegment(stmt.Blob(2), stmt.Int64(0), stmt.String(1), index, entries));
  }
  // In the order they happened; entries of one microsecond in the order
  // they were written.
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const HistoryEntry& a, const HistoryEntry& b) { return a.created_at < b.created_at; });
  return entries;
}

template <typename Base>
Result<StatusCounts> SqliteReads<Base>::CountJobs(const std::optional<std::string>& queue_name) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt,
                           conn_.Prepare(queue_name ? sql::kCountQueue : sql::kCountAll));
  if (queue_name) stmt.Bind(1, *queue_name);
  StatusCounts counts;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return counts;
    std::optional<JobStatus> status = ParseJobStatus(stmt.Text(0));
    if (!status) return Status::Internal("unknown job status in store: " + stmt.String(0));
    counts.of(*status) += stmt.Int64(1);
  }
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::OldestDeadletterAt(
    const std::string& queue_name) {
  return QueryOptTime(conn_, sql::kOldestDeadletter,
                      [&](Statement& stmt) { stmt.Bind(1, queue_name); });
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::OldestWaitingCreatedAt(
    const std::string& queue_name) {
  return QueryOptTime(conn_, sql::kOldestWaiting,
                      [&](Statement& stmt) { stmt.Bind(1, queue_name); });
}

template <typename Base>
Result<std::optional<QueueConfig>> SqliteReads<Base>::GetQueue(const std::string& name) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(kGetQueue));
  stmt.Bind(1, name);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<QueueConfig>();
  return std::optional<QueueConfig>(ReadQueue(stmt));
}

template <typename Base>
Result<std::vector<QueueConfig>> SqliteReads<Base>::ListQueues() {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(kListQueues));
  return CollectRows<QueueConfig>(stmt, ReadQueue);
}

template <typename Base>
Result<std::optional<WorkerInfo>> SqliteReads<Base>::GetWorker(const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(kGetWorker));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<WorkerInfo>();
  return std::optional<WorkerInfo>(ReadWorker(stmt));
}

template <typename Base>
Result<std::vector<WorkerInfo>> SqliteReads<Base>::ListWorkers(int limit, int offset) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(kListWorkers));
  stmt.Bind(1, static_cast<int64_t>(limit));
  stmt.Bind(2, static_cast<int64_t>(offset));
  return CollectRows<WorkerInfo>(stmt, ReadWorker);
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::NextScheduledAt() {
  return QueryOptTime(conn_, sql::kNextScheduled, [](Statement&) {});
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::NextLeaseExpiry() {
  return QueryOptTime(conn_, sql::kNextLeaseExpiry, [](Statement&) {});
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::NextDeadline() {
  return QueryOptTime(conn_, sql::kNextDeadline, [](Statement&) {});
}

template <typename Base>
Result<std::vector<Webhook>> SqliteReads<Base>::ListWebhooks() {
  return webhook_sql::ListWebhooks(conn_);
}

template <typename Base>
Result<Webhook> SqliteReads<Base>::GetWebhook(const std::string& id) {
  return webhook_sql::GetWebhook(conn_, id);
}

template <typename Base>
Result<std::vector<WebhookDelivery>> SqliteReads<Base>::ListDeliveries(const DeliveryFilter& f) {
  return webhook_sql::ListDeliveries(conn_, f);
}

template <typename Base>
Result<WebhookDelivery> SqliteReads<Base>::GetDelivery(const std::string& id) {
  return webhook_sql::GetDelivery(conn_, id);
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::NextDeliveryDue() {
  return webhook_sql::NextDeliveryDue(conn_);
}

template <typename Base>
Result<int64_t> SqliteReads<Base>::WebhooksVersion() {
  return webhook_sql::WebhooksVersion(conn_);
}

template <typename Base>
Result<std::vector<ThroughputPoint>> SqliteReads<Base>::ReadThroughput(
    const std::optional<std::string>& queue_name, Instant after) {
  return throughput_sql::ReadThroughput(conn_, queue_name, after);
}

template <typename Base>
Result<JobCounts> SqliteReads<Base>::SumHourlyThroughput(
    const std::optional<std::string>& queue_name, Instant from_hour) {
  return throughput_sql::SumHourly(conn_, queue_name, from_hour);
}

template <typename Base>
Result<std::vector<AuditEntry>> SqliteReads<Base>::ListAudit(const AuditFilter& f) {
  return audit_sql::ListAudit(conn_, f);
}

template <typename Base>
Result<std::optional<IdempotencyRecord>> SqliteReads<Base>::GetIdempotencyRecord(
    const std::string& scope, const std::string& key) {
  return audit_sql::GetIdempotencyRecord(conn_, scope, key);
}

template <typename Base>
Result<std::vector<StoredApiKey>> SqliteReads<Base>::ListApiKeys() {
  return api_key_sql::ListApiKeys(conn_);
}

template <typename Base>
Result<StoredApiKey> SqliteReads<Base>::GetApiKey(const std::string& id) {
  return api_key_sql::GetApiKey(conn_, id);
}

template <typename Base>
Result<int64_t> SqliteReads<Base>::ApiKeysVersion() {
  return api_key_sql::ApiKeysVersion(conn_);
}

template <typename Base>
Result<WorkflowView> SqliteReads<Base>::GetWorkflow(const std::string& id) {
  return workflow_sql::GetWorkflow(conn_, id);
}

template <typename Base>
Result<std::vector<WorkflowView>> SqliteReads<Base>::ListWorkflows(const WorkflowFilter& f) {
  return workflow_sql::ListWorkflows(conn_, f);
}

template <typename Base>
Result<std::vector<WorkflowJobRow>> SqliteReads<Base>::ListWorkflowJobs(
    const std::string& workflow_id, int limit, int offset) {
  return workflow_sql::ListWorkflowJobs(conn_, workflow_id, limit, offset);
}

template <typename Base>
Result<std::optional<WorkflowMember>> SqliteReads<Base>::GetWorkflowMember(
    const std::string& job_id) {
  return workflow_sql::GetWorkflowMember(conn_, job_id);
}

template <typename Base>
Result<JobDependencies> SqliteReads<Base>::GetJobDependencies(const std::string& job_id,
                                                              int limit) {
  return workflow_sql::GetJobDependencies(conn_, job_id, limit);
}

template <typename Base>
Result<std::optional<DependencyState>> SqliteReads<Base>::GetDependencyState(
    const std::string& job_id) {
  return workflow_sql::GetDependencyState(conn_, job_id);
}

template <typename Base>
Result<bool> SqliteReads<Base>::DependsOnTransitively(const std::string& job_id,
                                                      const std::string& on_job_id,
                                                      size_t max_jobs) {
  return workflow_sql::DependsOnTransitively(conn_, job_id, on_job_id, max_jobs);
}

template <typename Base>
Result<std::optional<std::string>> SqliteReads<Base>::GetTokenSecret() {
  return token_sql::GetTokenSecret(conn_);
}

template <typename Base>
Result<std::vector<RefreshToken>> SqliteReads<Base>::ListRefreshTokens(const std::string& key_id) {
  return token_sql::ListRefreshTokens(conn_, key_id);
}

template <typename Base>
Result<std::optional<RefreshToken>> SqliteReads<Base>::GetRefreshToken(
    const std::string& token_hash) {
  return token_sql::GetRefreshToken(conn_, token_hash);
}

template <typename Base>
Result<Schedule> SqliteReads<Base>::GetSchedule(const std::string& id) {
  return schedule_sql::GetSchedule(conn_, id);
}

template <typename Base>
Result<std::vector<Schedule>> SqliteReads<Base>::ListSchedules(const ScheduleFilter& f) {
  return schedule_sql::ListSchedules(conn_, f);
}

template <typename Base>
Result<long long> SqliteReads<Base>::CountSchedules() {
  return schedule_sql::CountSchedules(conn_);
}

template <typename Base>
Result<std::vector<ScheduleRun>> SqliteReads<Base>::ListScheduleRuns(const std::string& schedule_id,
                                                                     int limit, int offset) {
  return schedule_sql::ListScheduleRuns(conn_, schedule_id, limit, offset);
}

template <typename Base>
Result<OperationRecord> SqliteReads<Base>::GetOperation(const std::string& id) {
  return operation_sql::GetOperation(conn_, id);
}

template <typename Base>
Result<std::vector<OperationRecord>> SqliteReads<Base>::ListOperations(int limit, int offset) {
  return operation_sql::ListOperations(conn_, limit, offset);
}

template <typename Base>
Result<long long> SqliteReads<Base>::CountSelectedJobs(const JobSelection& sel) {
  return operation_sql::CountSelectedJobs(conn_, sel);
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::NextOperationDue() {
  return operation_sql::NextOperationDue(conn_);
}

template <typename Base>
Result<std::optional<Instant>> SqliteReads<Base>::NextScheduleDue() {
  return schedule_sql::NextScheduleDue(conn_);
}

template <typename Base>
Result<std::optional<AutoredriveRecord>> SqliteReads<Base>::GetAutoredrive(
    const std::string& queue_name) {
  return autoredrive_sql::GetAutoredrive(conn_, queue_name);
}

template <typename Base>
Result<std::vector<AutoredriveRecord>> SqliteReads<Base>::ListAutoredrive() {
  return autoredrive_sql::ListAutoredrive(conn_);
}

template class SqliteReads<ReadTx>;
template class SqliteReads<WriteTx>;

}  // namespace redrive::store::sqlite
