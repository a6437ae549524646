// The engine: every job operation of the contract, on top of a Store.
//
// Threads and ownership. The engine owns
//   - the write executor (write_executor.h), chosen by the store's traits:
//     on SQLite the group committer (one thread: one transaction and one
//     fsync for all requests that arrived together), on PostgreSQL a pool of
//     writer threads (a transaction per request, re-run when the store aborts
//     it); either calls each request's callback only after its commit;
//   - the readers (a small pool): run read-only requests on read snapshots;
//   - the background loop (one thread): long-poll deadlines and the services
//     (scheduler, lease reaper, deadline sweep, retention) of services/,
//     each run only while this node leads its duty among the nodes sharing
//     the store (services/duties.h).
// No call blocks its caller: each takes a callback that is invoked exactly
// once, on an engine thread, when the result is known. Callbacks must not
// block (the HTTP layer posts the result back to its own I/O thread).
//
// Thread-safety: all public methods are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/api_key.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/random.h"
#include "core/refresh_token.h"
#include "core/status.h"
#include "core/throughput.h"
#include "engine/operator_requests.h"
#include "engine/requests.h"
#include "engine/services/clock_check.h"
#include "engine/webhooks/sender.h"
#include "engine/webhooks/webhook_types.h"

// The interface names no store type but the Store it runs on: callers pass
// the engine's own parameter types (engine/requests.h); the engine maps them
// to the store's.
namespace redrive::store {
class Store;
}  // namespace redrive::store

namespace redrive::engine {

template <typename T>
using Callback = std::function<void(Result<T>)>;
using StatusCallback = std::function<void(Status)>;

class Notifier;  // engine/notifier.h

struct EngineOptions {
  // This node's name among the nodes sharing the store: who leads each
  // background duty (services/duties.h), shown in logs. Empty: DefaultNodeId()
  // ("host-pid-random"). Must be unique among live nodes.
  std::string node_id;
  int reader_threads = 2;
  // The most requests one group commit takes; more wait for the next one.
  size_t max_batch = 2048;
  // Concurrent claims of one queue, concurrent completes, fails and
  // heartbeats, and concurrent enqueues, that wait for the writer together
  // run as one op with set-based reads and writes (engine_jobs.cc). Off: one
  // op each (tests that count ops).
  bool coalesce_writes = true;
  // One-transaction-per-request stores: the store's write connections are
  // the database's, to be divided among the nodes that share it: each node
  // runs services/write_share.h's share of them at once (--db-pool-size not
  // given). Off: this node runs all of them.
  bool share_write_connections = false;
  // One-transaction-per-request stores: tries in all of a write the store
  // keeps aborting (lost serialization or deadlock races) before it fails
  // with SERVICE_UNAVAILABLE.
  int write_attempts = 8;
  // A parked long-poll claim tries again after this long even when no
  // wake-up came (the net under wake-ups lost between nodes). Zero: only
  // wake-ups and its deadline end a wait.
  std::chrono::milliseconds claim_repoll{0};
  // How long a claim's finding that its queue has nothing to claim stands
  // for the claims that come after it, while no wake-up of that queue
  // intervenes: such a claim, if it would wait, parks without a
  // transaction (Waiters::LookedEmpty). What can become claimable without a
  // wake-up of this node (a job another transaction held locked as the
  // claim read; another node's commit before its notification arrives) is
  // seen by the first claim after this long. Zero: every claim looks.
  std::chrono::milliseconds claim_known_empty_for{50};
  // How far this node's clock may be from a shared database's before it is
  // logged and reported (services/clock_check.h); zero: never reported.
  std::chrono::seconds max_clock_skew{2};
  std::chrono::seconds clock_check_interval{30};
  // Carries long-poll wake-ups (notifier.h); null: over the store's wake
  // channel if it has one (Store::NewWakeChannel), else in-process only.
  std::shared_ptr<Notifier> notifier;
  // How often retention runs (it is cheap when there is nothing to delete).
  std::chrono::seconds retention_interval{60};
  // How long the operator audit log keeps an entry (--audit-retention), and
  // how long an Idempotency-Key of an operator route is remembered.
  std::chrono::seconds audit_retention{90 * 24 * 3600};
  std::chrono::seconds idempotency_ttl{24 * 3600};
  // How long a finished bulk operation is kept (--operation-retention),
  // pruned with the audit log (services/audit_retention.h).
  std::chrono::seconds operation_retention{kDefaultOperationRetention};
  // Workers whose last heartbeat is older than this are deleted from the
  // registry (checked every retention_interval); those holding a lease stay.
  // Zero: never.
  std::chrono::seconds prune_workers_after{7 * 24 * 3600};
  // Upper bound on the background loop's sleep (safety net; services say
  // when they next need to run).
  std::chrono::milliseconds max_idle{1000};
  // Max jobs one pass of a sweep touches.
  int sweep_batch = 500;
  // The most jobs one batch (one transaction) of a bulk operation handles
  // (1..kMaxOperationBatch). A batch holds SQLite's writer while it runs
  // (about 3 ms for 100 retries on a small machine), and a request that
  // arrives meanwhile waits for it: smaller batches keep other queues'
  // latency down, larger ones finish an operation sooner (docs/benchmarks.md,
  // W5).
  int operation_batch = 100;
  // While this node serves requests, a bulk operation without a rate runs
  // batches of at most 16 jobs and holds the writer at most this percent of
  // the time (services/operation_runner.h); 100: it never yields.
  int operation_yield_share = 25;
  // The throughput history (console chart): each node records one sample
  // per interval in the store; the last `throughput_window` of them are
  // kept and shown.
  std::chrono::seconds throughput_interval{10};
  std::chrono::seconds throughput_window{15 * 60};
  // The dashboard's "recent activity" (GET /dashboard): samples are kept at
  // least this long (longer than throughput_window when it is shorter).
  std::chrono::seconds activity_window{60 * 60};
  // The most queues the store may hold; a job or configuration for a new
  // queue beyond it is refused with CONFLICT (ServerLimits::max_queues).
  size_t max_queues = ServerLimits{}.max_queues;
  // The most schedules the store may hold; creating one more is CONFLICT.
  size_t max_schedules = 1000;
  // The most webhooks the store may hold; creating one more is CONFLICT
  // (ServerLimits::max_webhooks).
  size_t max_webhooks = ServerLimits{}.max_webhooks;
  // Run history each schedule keeps: its newest runs, none older than the
  // age (checked every retention_interval).
  int schedule_history_keep = 1000;
  std::chrono::seconds schedule_history_retention{90 * 24 * 3600};
  // Outgoing webhooks. Without a sender, deliveries are still written to
  // the outbox but nobody sends them (tests that inspect the outbox).
  std::shared_ptr<WebhookSender> webhook_sender;
  WebhookDispatchOptions webhooks;
  // Live event streams (engine/realtime/event_hub.h): the most open at once
  // (--max-event-streams), and the events each may hold before a client
  // that reads too slowly is dropped (--event-buffer).
  size_t max_event_streams = 256;
  size_t event_buffer = 1024;
};

class WriteExecutor;
class EventHub;  // engine/realtime/event_hub.h
class Waiters;
class ReadThreadPool;
class BackgroundLoop;

class Engine {
 public:
  // `store`, `clock` and `random` must outlive the engine.
  Engine(store::Store& store, const Clock& clock, Random& random, EngineOptions options = {});
  ~Engine();  // Stop()s
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Starts the threads. Returns the store's error if it cannot be used.
  Status Start();
  // Runs the requests' write path on each connection the writer uses at
  // once, six times over, and rolls it all back: an enqueue of one job and
  // of four into a queue of its own, their claims and their completions.
  // The store's connections are then open, their statements prepared and
  // planned (on PostgreSQL, a new backend also loads its catalog caches),
  // before the first request pays for it. Nothing is committed, so nothing
  // is seen: no job, queue, history, metric, webhook or event. The serve
  // command calls it after Start, before it listens. The first error of a
  // step (a store error, a queue limit reached), if any.
  Status WarmUp();
  // EngineOptions::node_id, or the default made for this engine.
  const std::string& node_id() const;
  // Stops taking requests (new ones get SERVICE_UNAVAILABLE), answers pending
  // long-polls with what they have, finishes and commits everything queued,
  // joins the threads, then gives up its background duties so another node
  // takes them over at once. Idempotent.
  void Stop();

  // Live events of committed changes, for subscribers (SSE, WebSocket);
  // Stop() ends every subscription.
  EventHub& events();

  // --- producer
  void Enqueue(EnqueueParams p, Callback<EnqueueResult> done);
  // All valid items in one transaction; result order = input order.
  void EnqueueBulk(BulkEnqueueParams p, Callback<std::vector<BulkItemResult>> done);

  // --- worker
  void Claim(ClaimParams p, Callback<ClaimResult> done);
  void Heartbeat(HeartbeatParams p, Callback<Job> done);  // job after: lease_expires_at
  void Complete(CompleteParams p, StatusCallback done);
  void Fail(FailParams p, Callback<FailResult> done);
  // The holder puts its job off without spending a retry (job after:
  // scheduled or pending). CONFLICT past max_snoozes, the lease kept.
  void Snooze(SnoozeParams p, Callback<Job> done);
  // An ack of a job outside `scope` is refused in its result (ACCESS_DENIED).
  void AckBatch(std::string worker_id, std::vector<Ack> acks, QueueScope scope,
                Callback<std::vector<AckItemResult>> done);

  void RegisterWorker(RegisterWorkerParams p, Callback<WorkerInfo> done);
  void WorkerHeartbeat(WorkerHeartbeatParams p, Callback<WorkerInfo> done);
  // Releases the worker's processing jobs to pending without charging a retry.
  void DeregisterWorker(std::string worker_id, StatusCallback done);
  void GetWorker(std::string worker_id, Callback<WorkerInfo> done);
  void ListWorkers(ListWorkersParams p, Callback<std::vector<WorkerInfo>> done);

  // --- operator: reads
  void GetJob(std::string id, Callback<Job> done);
  void ListJobs(ListJobsParams p, Callback<std::vector<Job>> done);
  void JobStatuses(std::vector<std::string> ids, Callback<std::vector<Job>> done);
  void Stats(std::optional<std::string> queue_name, Callback<StatusCounts> done);
  void History(std::string job_id, Callback<std::vector<HistoryEntry>> done);
  void ListDeadLetters(ListDeadLettersParams p, Callback<std::vector<Job>> done);
  // The DLQ grouped by (queue, dead reason, truncated error), largest first.
  void SummarizeDeadLetters(SummarizeDeadLettersParams p,
                            Callback<std::vector<DeadLetterGroup>> done);

  // --- operator: writes
  void Cancel(std::string job_id, StatusCallback done);
  void Retry(RetryParams p, Callback<Job> done);
  void SetPriority(std::string job_id, int priority, Callback<PriorityChange> done);
  void UpdatePayload(std::string job_id, std::string payload_json, Callback<Job> done);
  void DlqRetry(DlqRetryParams p, Callback<DlqRetryResult> done);
  void DlqPurge(DlqPurgeParams p, Callback<DlqPurgeResult> done);
  // Quarantined jobs back to pending, crash_count reset (engine_quarantine.cc).
  // CONFLICT for a job that is not quarantined.
  void ReleaseQuarantine(ReleaseParams p, Callback<Job> done);
  // The selected quarantined jobs; jobs no longer quarantined are skipped.
  void ReleaseQuarantined(BulkReleaseParams p, Callback<BulkReleaseResult> done);

  // --- bulk operations (engine_operations.cc; run by services/operation_runner.h)
  // CONFLICT past kMaxUnfinishedOperations unfinished ones, or when the
  // target queue is disabled. A dry run creates nothing.
  void CreateOperation(CreateOperationParams p, Callback<CreateOperationResult> done);
  void GetOperation(std::string id, Callback<Operation> done);  // NOT_FOUND if unknown
  // Newest first.
  void ListOperations(int limit, int offset, Callback<std::vector<Operation>> done);
  // Stops it before its next batch (a batch running now completes).
  // CONFLICT when it has already finished.
  void CancelOperation(std::string id, Callback<Operation> done);

  // --- auto-redrive (engine_autoredrive.cc; run by services/autoredrive_runner.h)
  // NOT_FOUND when the queue has no policy.
  void GetAutoredrive(std::string queue_name, Callback<AutoredriveView> done);
  // Every queue's, by queue name.
  void ListAutoredrive(Callback<std::vector<AutoredriveView>> done);
  // Creates or replaces the queue's policy (the queue is created when new,
  // as configuring one does). VALIDATION naming the field. The state starts
  // over (InitialAutoredriveState) when the policy is new, is switched on or
  // off, or targets another class; a new cool-down restarts a cooling under
  // way; other edits keep it.
  void PutAutoredrive(AutoredrivePolicy policy, Callback<PutAutoredriveResult> done);
  // NOT_FOUND when the queue has no policy. Jobs keep their revival counts.
  void DeleteAutoredrive(std::string queue_name, StatusCallback done);

  // --- queues
  void ListQueues(Callback<std::vector<QueueView>> done);
  void GetQueue(std::string name, Callback<QueueView> done);  // NOT_FOUND if unknown
  void ConfigureQueue(std::string name, QueueConfigPatch patch, Callback<QueueConfig> done);
  void PauseQueue(std::string name, std::optional<std::string> reason, Callback<QueueConfig> done);
  void ResumeQueue(std::string name, Callback<QueueConfig> done);
  void DeleteQueue(std::string name, bool delete_jobs, StatusCallback done);

  // Workflows and job dependencies (engine_workflows.cc; core/workflow.h).
  // A job whose dependencies are not met is `blocked`; the completion that
  // meets them unblocks it in its own transaction (dependency_release.h).
  // Creation writes every job, the workflow and its edges in one
  // transaction, or nothing.
  void CreateWorkflow(CreateWorkflowParams p, Callback<CreateWorkflowResult> done);
  void GetWorkflow(std::string id, Callback<WorkflowView> done);  // NOT_FOUND if unknown
  void ListWorkflows(ListWorkflowsParams p, Callback<std::vector<WorkflowView>> done);
  // Cancels every unfinished job (pending, scheduled, blocked; processing
  // ones through the cancel path). CONFLICT when nothing is left to cancel.
  void CancelWorkflow(std::string id, Callback<WorkflowView> done);
  // Redrives every dead-lettered, quarantined and cancelled job of a failed
  // or cancelled workflow (CONFLICT otherwise); a redriven job whose
  // dependencies are not met waits blocked again, and the blocked jobs
  // proceed as their dependencies complete.
  void RetryWorkflow(std::string id, Callback<WorkflowView> done);
  // One page of a workflow's jobs in definition order (NOT_FOUND if the
  // workflow is unknown).
  void ListWorkflowJobs(std::string id, int limit, int offset,
                        Callback<std::vector<WorkflowJobRow>> done);
  // One job of a workflow (NOT_FOUND if either is unknown or the job is not
  // the workflow's).
  void GetWorkflowJob(std::string id, std::string job_id, Callback<WorkflowJobRow> done);
  void GetJobDependencies(std::string job_id, QueueScope scope, Callback<JobDependenciesView> done);
  // GET /jobs/{id}: the job, its workflow and whether its dependencies hold,
  // with at most 2 dependencies and 0 dependents listed (enough to tell
  // whether it waits for exactly one job, its parent).
  void GetJobWithLinks(std::string job_id, QueueScope scope, Callback<JobDependenciesView> done);
  void AddJobDependencies(AddDependenciesParams p, Callback<AddDependenciesResult> done);
  // Enqueue (POST /jobs) of a job that waits for `depends_on` (Spooled's
  // parent_job_id): blocked unless they are already met. The dependencies
  // must exist (VALIDATION naming `field`) and be in queues of `scope`.
  void EnqueueAfter(EnqueueParams p, std::vector<std::string> depends_on, std::string field,
                    QueueScope scope, Callback<EnqueueResult> done);

  // --- outgoing webhooks (engine_webhooks.cc)
  // Schedules (cron jobs; engine_schedules.cc). Fired by the schedule
  // service (services/schedule_firing.h) on the node leading its duty.
  void CreateSchedule(CreateScheduleParams p, Callback<Schedule> done);
  void GetSchedule(std::string id, Callback<Schedule> done);  // NOT_FOUND if unknown
  void ListSchedules(ListSchedulesParams p, Callback<std::vector<Schedule>> done);
  void UpdateSchedule(std::string id, SchedulePatch patch, Callback<Schedule> done);
  void DeleteSchedule(std::string id, StatusCallback done);
  // Pause clears next_run_at. Resume recomputes it from now under the skip
  // policy; under run_once and backfill from the pause, so the fire times
  // missed while paused are caught up as after a server's downtime.
  void PauseSchedule(std::string id, Callback<Schedule> done);
  void ResumeSchedule(std::string id, Callback<Schedule> done);
  // Enqueues one job now (a run of kind manual, overlap policy applied),
  // whether or not the schedule is active; next_run_at is unchanged.
  void TriggerSchedule(std::string id, Callback<ScheduleRun> done);
  // Newest first, with each run's job status read from the job.
  void ScheduleHistory(std::string id, int limit, int offset,
                       Callback<std::vector<ScheduleHistoryEntry>> done);

  void ListWebhooks(Callback<std::vector<Webhook>> done);
  void GetWebhook(std::string id, Callback<Webhook> done);  // NOT_FOUND if unknown
  // The answer carries the secret (generated when not given).
  void CreateWebhook(CreateWebhookParams p, Callback<Webhook> done);
  void UpdateWebhook(std::string id, WebhookPatch patch, Callback<Webhook> done);
  // Deletes the webhook and its deliveries.
  void DeleteWebhook(std::string id, StatusCallback done);
  // NOT_FOUND if the webhook is unknown.
  void ListDeliveries(ListDeliveriesParams p, Callback<std::vector<WebhookDelivery>> done);
  // POSTs a webhook.test event to the webhook now (enabled or not), records
  // it as a delivery and answers with the outcome (after up to the sender's
  // timeout). UNAVAILABLE when the engine has no webhook sender.
  void TestWebhook(std::string id, Callback<WebhookTestResult> done);

  // --- operator audit log and Idempotency-Keys (engine_audit.cc)
  // Reserves record.(scope, key) for this request from now until now +
  // idempotency_ttl (the record's times are set here), or answers which
  // record holds it. A record past its expiry is replaced.
  void ReserveIdempotencyKey(IdempotencyRecord record, Callback<IdempotencyClaim> done);
  // Writes the outcome of an answered operator request in one transaction:
  // its audit entry (id and `at` from the engine's clock and randomness) and
  // its key's answer (or the key freed).
  void FinishOperatorRequest(OperatorOutcome outcome, StatusCallback done);
  // The audit log, newest first (store.h: ListAudit).
  void ListAudit(AuditFilter filter, Callback<std::vector<AuditEntry>> done);

  // --- stored API keys (engine_api_keys.cc; core/api_key.h)
  // Every key, revoked ones too, oldest first.
  void ListApiKeys(Callback<std::vector<StoredApiKey>> done);
  void GetApiKey(std::string id, Callback<StoredApiKey> done);  // NOT_FOUND if unknown
  // Writes `key` as the API made it (name, role, queues, secret_hash,
  // prefix, expires_at) with a new id and created_at = updated_at = now.
  // CONFLICT when kMaxStoredApiKeys exist; VALIDATION for an expires_at
  // not after now.
  void CreateApiKey(StoredApiKey key, Callback<StoredApiKey> done);
  // NOT_FOUND if unknown. Revoking is a patch with active = false; it ends
  // the key's refresh tokens in the same transaction.
  void UpdateApiKey(std::string id, ApiKeyPatch patch, Callback<StoredApiKey> done);
  // Every key and the version read with them (one read snapshot); unset
  // when the store's version is still `known` (nothing changed).
  void LoadApiKeys(std::optional<int64_t> known, Callback<std::optional<ApiKeySnapshot>> done);
  // Moves the keys' last_used_at forward (one write for the batch).
  void RecordApiKeyUse(std::vector<ApiKeyUse> uses, StatusCallback done);

  // --- token exchange (engine_tokens.cc; core/refresh_token.h). The API
  // makes the secrets and hashes; the engine stores and checks them.
  // The stored token secret, if any (a read).
  void LoadTokenSecret(Callback<std::optional<std::string>> done);
  // The token secret every node signs with: the stored one, or `candidate`
  // stored now when there is none.
  void EnsureTokenSecret(std::string candidate, Callback<std::string> done);
  // Stores a refresh token of `key_id` (created now, expiring after `ttl`),
  // ending the key's oldest live ones beyond kMaxLiveRefreshTokensPerKey.
  void IssueRefreshToken(std::string token_hash, std::string key_id, std::chrono::seconds ttl,
                         Callback<RefreshToken> done);
  // Single use, in one transaction: ends the token `old_hash` (reason
  // "refreshed") and issues `new_hash` to the same key, expiring after
  // `ttl`; answers the new token. UNAUTHORIZED, saying why, when the old
  // one is unknown, ended or expired, and whatever `accept(old)` refuses
  // (then nothing is written). `accept` runs inside the write, perhaps more
  // than once (a re-run write), and must not block.
  void RotateRefreshToken(std::string old_hash, std::string new_hash, std::chrono::seconds ttl,
                          std::function<Status(const RefreshToken&)> accept,
                          Callback<RefreshToken> done);
  // Reusable (Spooled's refresh, the default): answers the token
  // `token_hash` when it is live and `accept(token)` takes it, writing
  // nothing; UNAUTHORIZED, saying why, otherwise. `accept` runs on a reader
  // thread and must not block.
  void UseRefreshToken(std::string token_hash, std::function<Status(const RefreshToken&)> accept,
                       Callback<RefreshToken> done);
  // Ends the token `token_hash` (reason "logout") if it is live; answers
  // whether it did (false: unknown, or already ended). ACCESS_DENIED, ending
  // nothing, when it was issued to another key than `key_id`.
  void EndRefreshToken(std::string token_hash, std::string key_id, Callback<bool> done);
  // Ends every live token of `key_id` (reason "logout"); answers how many.
  void EndRefreshTokensOfKey(std::string key_id, Callback<long long> done);

  // --- service
  void Ready(StatusCallback done);  // store reachable
  // The last clock comparison with a shared database; unset on SQLite.
  std::optional<ClockSkewReport> clock_skew() const;

  // The cluster's job throughput per sampling interval of the last
  // `throughput_window`, oldest first, for one queue or all: what every node
  // sharing the store recorded (services/throughput_sampler.h), summed.
  void Throughput(std::optional<std::string> queue_name,
                  Callback<std::vector<ThroughputPoint>> done);
  std::chrono::seconds throughput_interval() const;

  // GET /queues/{name}/stats, from one read snapshot; NOT_FOUND for an
  // unknown queue.
  void QueueStats(std::string name, Callback<QueueStatsView> done);

  // The summary of GET /dashboard, from one read snapshot (DashboardView).
  void Dashboard(Callback<DashboardView> done);

  // Prometheus text of the engine's metrics: the store gauges (jobs by queue
  // and status, DLQ size and oldest age; read on a reader thread at call
  // time), the parked long-poll claims, then the job and group-commit
  // counters (engine/metrics.h).
  void ScrapeMetrics(Callback<std::string> done);
  // Long-poll claims parked now, waiting for a job or for their wait to end
  // (the redrive_claims_waiting gauge).
  size_t parked_claims() const;

  // For tests: run every background service once at clock.Now(), synchronously.
  // Returns the number of jobs they changed.
  long long RunServicesOnce();
  // For tests: reserve and send every webhook delivery due at clock.Now()
  // on the calling thread. Needs a webhook_sender; use with
  // webhooks.run_threads = false so no dispatcher thread competes. Returns
  // the number of attempts.
  long long RunWebhooksOnce();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redrive::engine
