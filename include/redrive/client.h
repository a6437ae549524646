// redrive::sdk::Client: typed calls for every route of the Redrive HTTP API.
//
//   redrive::Client client({.server_url = "http://127.0.0.1:7070"});
//   auto r = client.Enqueue({.queue_name = "emails", .payload = {{"to", "ada"}}});
//   if (!r.ok()) std::cerr << r.status().ToString() << "\n";
//
// Errors are values: every call returns Status or Result<T>. A refusal by the
// server carries its code (so LEASE_EXPIRED is told apart from CONFLICT), its
// message and, for VALIDATION_ERROR, the offending field. A transport failure
// (refused connection, timeout, a reply that is not HTTP) is
// SERVICE_UNAVAILABLE with a message naming the server.
//
// Thread-safety: a Client may be used from many threads at once. It keeps a
// small pool of keep-alive connections; each carries one request at a time.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "redrive/types.h"

namespace redrive::sdk {

struct ClientOptions {
  std::string server_url = "http://127.0.0.1:7070";  // http://host:port
  std::string api_key;                               // sent as Bearer when set
  std::chrono::milliseconds connect_timeout{5'000};
  // For a whole request (send and read the answer). A long-poll claim adds
  // its wait to this.
  std::chrono::milliseconds request_timeout{30'000};
  int max_idle_connections = 4;  // idle keep-alive connections kept per Client
  // Why this client changes things: sent (percent-encoded) as X-Redrive-Reason
  // with every request, and kept with each operator change in the server's
  // audit log. Empty: not sent.
  std::string reason;
};

// One live event (GET /api/v1/events): Spooled's type ("JobCreated",
// "JobStatusChange", "JobCompleted", "JobFailed", "WorkerRegistered", ...)
// and its data ({"job_id": ..., "queue_name": ..., "timestamp": ...}).
struct LiveEvent {
  std::string type;
  boost::json::value data;
};

// Which events WatchEvents follows: all, one queue's, or one job's.
struct WatchEventsFilter {
  std::optional<std::string> queue_name;
  std::optional<std::string> job_id;
};

class Client {
 public:
  explicit Client(ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClientOptions& options() const;

  // ---- Producer
  Result<EnqueueResult> Enqueue(const EnqueueRequest& request);
  Result<BulkEnqueueResult> EnqueueBulk(const BulkEnqueueRequest& request);

  // ---- Jobs
  Result<Job> GetJob(const std::string& id);
  Result<std::vector<Job>> ListJobs(const ListJobsFilter& filter = {});  // JobSummary fields
  Result<std::vector<HistoryEntry>> History(const std::string& id);
  Result<std::vector<JobStatusEntry>> JobStatuses(const std::vector<std::string>& ids);
  // Counts of one queue, or of all queues when queue_name is empty.
  Result<StatusCounts> Stats(const std::string& queue_name = "");
  Status Cancel(const std::string& id);
  // `budget`: "reset" (the server's default), "keep" or "extend:N";
  // `target_queue`: redrive into that queue instead (created if new).
  Result<Job> Retry(const std::string& id, std::optional<Instant> expires_at = std::nullopt,
                    std::optional<std::string> budget = std::nullopt,
                    std::optional<std::string> target_queue = std::nullopt);
  Result<PriorityChange> SetPriority(const std::string& id, int priority);
  Result<Job> RepairPayload(const std::string& id, const boost::json::value& payload);

  // ---- DLQ
  Result<std::vector<Job>> ListDlq(const DlqFilter& filter = {});
  // The DLQ grouped by (queue, dead reason, first 200 characters of the
  // error), largest group first.
  Result<std::vector<DeadLetterGroup>> DlqSummary(const DlqSummaryFilter& filter = {});
  Result<DlqRetryResult> RetryDlq(const DlqRetryRequest& request);
  // The number of jobs deleted; with `dry_run`, the number the same purge
  // would delete (the server's matched_count), and nothing is deleted.
  Result<int> PurgeDlq(const DlqPurgeRequest& request);

  // ---- Quarantine (jobs whose attempts lost their lease crash_limit times)
  // Back to pending, crash_count reset; CONFLICT if the job is not quarantined.
  Result<Job> Release(const std::string& id, std::optional<std::string> budget = std::nullopt,
                      std::optional<std::string> target_queue = std::nullopt);
  Result<ReleaseResult> ReleaseQuarantined(const ReleaseRequest& request);

  // ---- Bulk operations (asynchronous, any number of jobs). Create answers
  // at once (state "queued"); poll GetOperation for matched/done/failed and
  // the ETA. CONFLICT past 10 unfinished operations; Cancel of a finished
  // one is CONFLICT.
  Result<Operation> CreateOperation(const OperationRequest& request);
  // The same request as a dry run: nothing is created.
  Result<OperationPreview> PreviewOperation(const OperationRequest& request);
  Result<Operation> GetOperation(const std::string& id);
  // Newest first.
  Result<std::vector<Operation>> ListOperations(int limit = 20, int offset = 0);
  Result<Operation> CancelOperation(const std::string& id);

  // ---- Auto-redrive (one opt-in policy per queue; core/autoredrive.h).
  // NOT_FOUND when the queue has no policy.
  Result<Autoredrive> GetAutoredrive(const std::string& queue);
  // Every queue's, by queue name.
  Result<std::vector<Autoredrive>> ListAutoredrive();
  // Creates or replaces policy.queue_name's policy: the whole policy (its
  // created_at, updated_at and updated_by are the server's). VALIDATION
  // naming the field when out of bounds.
  Result<Autoredrive> SetAutoredrive(const AutoredrivePolicy& policy);
  // NOT_FOUND when the queue has no policy.
  Status DeleteAutoredrive(const std::string& queue);

  // ---- Queues
  Result<std::vector<QueueView>> ListQueues();
  Result<QueueView> GetQueue(const std::string& name);
  Result<QueueStats> QueueStatsOf(const std::string& name);
  Result<QueueConfig> ConfigureQueue(const std::string& name, const QueueConfigUpdate& update);
  Result<QueueConfig> PauseQueue(const std::string& name,
                                 std::optional<std::string> reason = std::nullopt);
  Result<QueueConfig> ResumeQueue(const std::string& name);
  Status DeleteQueue(const std::string& name, bool delete_jobs = false);

  // ---- Schedules (cron jobs)
  Result<std::vector<Schedule>> ListSchedules(const ListSchedulesFilter& filter = {});
  Result<Schedule> GetSchedule(const std::string& id);
  Result<Schedule> CreateSchedule(const ScheduleSpec& spec);
  Result<Schedule> UpdateSchedule(const std::string& id, const ScheduleSpec& spec);
  Status DeleteSchedule(const std::string& id);
  Result<Schedule> PauseSchedule(const std::string& id);
  Result<Schedule> ResumeSchedule(const std::string& id);
  // One job now; CONFLICT when the overlap policy holds it back.
  Result<ScheduleTrigger> TriggerSchedule(const std::string& id);
  // Where an expression would fire in `timezone` (the server's default UTC):
  // the first `count` (1..20, the server's default 5) instants after the
  // server's now (GET /schedules/preview). Nothing is stored; a bad
  // expression or zone is VALIDATION naming cron_expression or timezone.
  Result<std::vector<Instant>> PreviewSchedule(const std::string& cron_expression,
                                               std::optional<std::string> timezone = std::nullopt,
                                               std::optional<int> count = std::nullopt);
  // Newest first.
  Result<std::vector<ScheduleHistoryItem>> ScheduleHistory(
      const std::string& id, std::optional<int> limit = std::nullopt,
      std::optional<int> offset = std::nullopt);

  // ---- Workflows: jobs created together, each waiting for others of them.
  // A job whose dependencies are not met is JobStatus::kBlocked; completing
  // its dependencies unblocks it in the same transaction.
  Result<CreatedWorkflow> CreateWorkflow(const CreateWorkflowRequest& request);
  // Newest first.
  Result<std::vector<Workflow>> ListWorkflows(const ListWorkflowsFilter& filter = {});
  Result<Workflow> GetWorkflow(const std::string& id);
  // Cancels every unfinished job; CONFLICT when none is left.
  Result<Workflow> CancelWorkflow(const std::string& id);
  // Redrives its dead-lettered and cancelled jobs and releases its
  // quarantined ones; CONFLICT unless the workflow is failed or cancelled.
  Result<Workflow> RetryWorkflow(const std::string& id);
  // Its jobs in definition order.
  Result<std::vector<WorkflowJob>> ListWorkflowJobs(const std::string& id,
                                                    const WorkflowJobsPage& page = {});
  // NOT_FOUND when the job is not one of the workflow's.
  Result<WorkflowJob> GetWorkflowJob(const std::string& workflow_id, const std::string& job_id);
  Result<std::vector<WorkflowJobStatus>> WorkflowJobStatuses(const std::string& id,
                                                             const WorkflowJobsPage& page = {});
  Result<JobDependencyInfo> GetJobDependencies(const std::string& job_id);
  // Makes a job that has not run wait for `depends_on` (job ids) too; `mode`
  // becomes the mode of all its dependencies. A cycle is VALIDATION_ERROR
  // naming depends_on[i]; a job that ran already is CONFLICT.
  Result<AddDependenciesResult> AddJobDependencies(
      const std::string& job_id, const std::vector<std::string>& depends_on,
      std::optional<DependencyMode> mode = std::nullopt);

  // ---- The operator audit log, newest first; page on with next_cursor.
  Result<AuditPage> ListAudit(const AuditQuery& query = {});

  // ---- Stored API keys (admin only). Revoking keeps the key, inactive.
  Result<std::vector<ApiKeyInfo>> ListApiKeys();
  Result<ApiKeyInfo> CreateApiKey(const CreateApiKeyRequest& request);
  Status RevokeApiKey(const std::string& id);

  // ---- Tokens (/api/v1/auth). Login and RefreshTokens need no credential
  // on the client; Me and Logout use the client's own (key or token).
  Result<TokenPair> Login(const std::string& api_key);
  // Uses `refresh_token` up: keep the new pair's.
  Result<TokenPair> RefreshTokens(const std::string& refresh_token);
  Result<TokenValidation> ValidateToken(const std::string& access_token);
  Result<Identity> Me();
  // Ends `refresh_token` (it must be the caller's key's), or without one
  // every refresh token of the caller's key.
  Status Logout(const std::optional<std::string>& refresh_token = std::nullopt);

  // ---- Workers
  Result<WorkerRegistration> RegisterWorker(const RegisterWorkerRequest& request);
  Result<WorkerInfo> WorkerHeartbeat(const std::string& worker_id,
                                     const WorkerHeartbeatRequest& request);
  Status DeregisterWorker(const std::string& worker_id);
  Result<std::vector<WorkerInfo>> ListWorkers();  // every worker, paging GET /workers
  Result<WorkerInfo> GetWorker(const std::string& worker_id);

  // ---- Leases
  // Once `stop` is requested, a claim waiting in its long-poll (or about to
  // be sent) ends at once with SERVICE_UNAVAILABLE; other calls on the
  // Client are not affected (unlike CancelInFlight).
  Result<ClaimResult> Claim(const ClaimRequest& request, std::stop_token stop = {});
  // The new lease expiry.
  Result<Instant> Heartbeat(const std::string& job_id, const std::string& worker_id,
                            const std::string& lease_id, int lease_duration_secs);
  Status Complete(const std::string& job_id, const std::string& worker_id,
                  const std::string& lease_id, const boost::json::value& result = nullptr);
  Result<FailResult> Fail(const std::string& job_id, const std::string& worker_id,
                          const std::string& lease_id, const std::string& error,
                          const FailOptions& options = {});
  // "Not now": the job runs again after `delay` without spending a retry.
  // Answers when it is due; CONFLICT past the job's max_snoozes (the lease
  // is kept: fail or complete it instead).
  Result<Instant> Snooze(const std::string& job_id, const std::string& worker_id,
                         const std::string& lease_id, std::chrono::milliseconds delay);
  Result<std::vector<AckResult>> AckBatch(const std::string& worker_id,
                                          const std::vector<Ack>& acks);

  // ---- Live events
  // Calls `on_event` with each event as it happens (a connection of its
  // own, no timeout once it is open) until `on_event` returns false or
  // `stop` is requested (then OK), or the server ends the stream
  // (UNAVAILABLE with its reason: shutting down, or this reader too slow).
  Status WatchEvents(const WatchEventsFilter& filter,
                     const std::function<bool(const LiveEvent&)>& on_event,
                     std::stop_token stop = {});

  // ---- Service
  Result<Health> GetHealth();
  Status Ready();  // OK when GET /health/ready answers 200

  // Escape hatch for routes without a typed call: `path` is relative to
  // /api/v1 unless it starts with "/health". Answers the parsed JSON body
  // (null for 204).
  Result<boost::json::value> Call(std::string_view method, const std::string& path,
                                  const std::optional<boost::json::value>& body = std::nullopt);

  // Aborts requests in flight (they fail with SERVICE_UNAVAILABLE), e.g. to
  // end a long-poll claim at shutdown. Later requests work normally.
  void CancelInFlight();

  // TCP connections this Client has opened so far: 1 per concurrent caller
  // while keep-alive holds (a load generator reports it).
  int64_t connections_opened() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redrive::sdk

namespace redrive {
using Client = sdk::Client;
using ClientOptions = sdk::ClientOptions;
}  // namespace redrive
