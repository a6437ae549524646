#include "api/routes.h"

#include "api/auth.h"
#include "api/handlers.h"
#include "api/realtime_handlers.h"

namespace redrive::api {

std::vector<Route> AllRoutes() {
  constexpr unsigned kWorkerRoute = kWorkers;            // admin + worker
  constexpr unsigned kReadRoute = kViewers;              // admin + viewer
  constexpr unsigned kSharedRead = kWorkers | kViewers;  // everyone with a key
  // Operator mutations carry their audit action (the fifth field): they take
  // an Idempotency-Key and leave an entry in the audit log (operator_route.h).
  return {
      // Service.
      {"GET", "/health", kPublic, HandleHealth},
      {"GET", "/health/live", kPublic, HandleHealthLive},
      {"GET", "/health/ready", kPublic, HandleHealthReady},
      // Any valid key may scrape (a viewer key is enough); with no keys
      // configured it is open, like every route then.
      {"GET", "/metrics", kSharedRead, HandleMetrics},
      // The web console: static files, public (the page holds no data; its
      // data calls carry the key). /me tells it whether to ask for a key.
      {"GET", "/", kPublic, HandleConsoleIndex},
      {"GET", "/console/{file}", kPublic, HandleConsoleFile},
      {"GET", "/api/v1/me", kPublic | kOptionalKey, HandleMe},
      // The token exchange (Spooled's /auth, token_auth.h). login, refresh
      // and validate carry their credential in the body, and count its
      // failures against the client like a bad key.
      {"POST", "/api/v1/auth/login", kPublic, HandleLogin},
      {"POST", "/api/v1/auth/refresh", kPublic, HandleRefresh},
      {"POST", "/api/v1/auth/validate", kPublic, HandleValidateToken},
      {"GET", "/api/v1/auth/me", kSharedRead, HandleAuthMe},
      {"POST", "/api/v1/auth/logout", kSharedRead, HandleLogout},
      {"GET", "/api/v1/throughput", kReadRoute, HandleThroughput},
      // Live events (Spooled's realtime): server-sent events and a
      // WebSocket, for every key; a viewer's carry no results, a scoped
      // key's only its queues.
      {"GET", "/api/v1/events", kSharedRead, HandleEvents},
      {"GET", "/api/v1/events/jobs/{id}", kSharedRead, HandleJobEvents},
      {"GET", "/api/v1/events/queues/{name}", kSharedRead, HandleQueueEvents},
      {"GET", "/api/v1/ws", kSharedRead, HandleWebSocketEvents},
      {"GET", "/api/v1/dashboard", kReadRoute, HandleDashboard},
      // Producer.
      {"POST", "/api/v1/jobs", kWorkerRoute, HandleEnqueue},
      {"POST", "/api/v1/jobs/bulk", kWorkerRoute, HandleEnqueueBulk},
      // Worker.
      {"POST", "/api/v1/workers/register", kWorkerRoute, HandleRegisterWorker},
      {"POST", "/api/v1/workers/{id}/heartbeat", kWorkerRoute, HandleWorkerHeartbeat},
      {"POST", "/api/v1/workers/{id}/deregister", kWorkerRoute, HandleDeregisterWorker},
      {"GET", "/api/v1/workers", kSharedRead, HandleListWorkers},
      {"GET", "/api/v1/workers/{id}", kSharedRead, HandleGetWorker},
      {"POST", "/api/v1/jobs/claim", kWorkerRoute, HandleClaim},
      {"POST", "/api/v1/jobs/ack", kWorkerRoute, HandleAck},
      {"POST", "/api/v1/jobs/{id}/heartbeat", kWorkerRoute, HandleJobHeartbeat},
      {"POST", "/api/v1/jobs/{id}/complete", kWorkerRoute, HandleComplete},
      {"POST", "/api/v1/jobs/{id}/fail", kWorkerRoute, HandleFail},
      {"POST", "/api/v1/jobs/{id}/snooze", kWorkerRoute, HandleSnooze},
      // Operator: jobs.
      {"GET", "/api/v1/jobs", kReadRoute, HandleListJobs},
      {"GET", "/api/v1/jobs/status", kReadRoute, HandleJobStatuses},
      {"GET", "/api/v1/jobs/stats", kReadRoute, HandleJobStats},
      {"GET", "/api/v1/jobs/{id}", kSharedRead, HandleGetJob},
      {"DELETE", "/api/v1/jobs/{id}", kAdminOnly, HandleCancel, "job.cancel"},
      {"GET", "/api/v1/jobs/{id}/history", kReadRoute, HandleHistory},
      {"POST", "/api/v1/jobs/{id}/retry", kAdminOnly, HandleRetry, "job.retry"},
      {"PUT", "/api/v1/jobs/{id}/priority", kAdminOnly, HandleSetPriority, "job.priority"},
      {"PUT", "/api/v1/jobs/{id}/payload", kAdminOnly, HandleSetPayload, "job.payload"},
      // Job dependencies: a producer makes a job wait for others.
      {"GET", "/api/v1/jobs/{id}/dependencies", kSharedRead, HandleGetDependencies},
      {"POST", "/api/v1/jobs/{id}/dependencies", kWorkerRoute, HandleAddDependencies},
      // Workflows: producers create them; cancel and retry are operator changes.
      {"GET", "/api/v1/workflows", kReadRoute, HandleListWorkflows},
      {"POST", "/api/v1/workflows", kWorkerRoute, HandleCreateWorkflow},
      {"GET", "/api/v1/workflows/{id}", kReadRoute, HandleGetWorkflow},
      {"POST", "/api/v1/workflows/{id}/cancel", kAdminOnly, HandleCancelWorkflow,
       "workflow.cancel"},
      {"POST", "/api/v1/workflows/{id}/retry", kAdminOnly, HandleRetryWorkflow, "workflow.retry"},
      {"GET", "/api/v1/workflows/{id}/jobs", kReadRoute, HandleWorkflowJobs},
      // A literal segment wins over {job_id}.
      {"GET", "/api/v1/workflows/{id}/jobs/status", kReadRoute, HandleWorkflowJobStatus},
      {"GET", "/api/v1/workflows/{id}/jobs/{job_id}", kReadRoute, HandleWorkflowJob},
      // Operator: the DLQ.
      {"GET", "/api/v1/jobs/dlq", kReadRoute, HandleListDlq},
      // A literal segment wins over {id}: /jobs/dlq/summary is not a job's subpath.
      {"GET", "/api/v1/jobs/dlq/summary", kReadRoute, HandleDlqSummary},
      {"POST", "/api/v1/jobs/dlq/retry", kAdminOnly, HandleDlqRetry, "dlq.retry"},
      {"POST", "/api/v1/jobs/dlq/purge", kAdminOnly, HandleDlqPurge, "dlq.purge"},
      // Operator: quarantine (jobs whose attempts crashed crash_limit times).
      {"POST", "/api/v1/jobs/{id}/release", kAdminOnly, HandleRelease, "job.release"},
      {"POST", "/api/v1/jobs/quarantine/release", kAdminOnly, HandleBulkRelease,
       "quarantine.release"},
      // Operator: bulk operations over a selector, run in the background in
      // batches (the synchronous DLQ routes above stay, for <= 1000 jobs).
      {"GET", "/api/v1/operations", kReadRoute, HandleListOperations},
      {"POST", "/api/v1/operations", kAdminOnly, HandleCreateOperation, "operation.create"},
      {"GET", "/api/v1/operations/{id}", kReadRoute, HandleGetOperation},
      {"POST", "/api/v1/operations/{id}/cancel", kAdminOnly, HandleCancelOperation,
       "operation.cancel"},
      // Operator: queues.
      {"GET", "/api/v1/queues", kReadRoute, HandleListQueues},
      {"GET", "/api/v1/queues/{name}", kReadRoute, HandleGetQueue},
      {"DELETE", "/api/v1/queues/{name}", kAdminOnly, HandleDeleteQueue, "queue.delete"},
      {"GET", "/api/v1/queues/{name}/stats", kReadRoute, HandleQueueStats},
      {"PUT", "/api/v1/queues/{name}/config", kAdminOnly, HandleConfigureQueue, "queue.config"},
      {"POST", "/api/v1/queues/{name}/pause", kAdminOnly, HandlePauseQueue, "queue.pause"},
      {"POST", "/api/v1/queues/{name}/resume", kAdminOnly, HandleResumeQueue, "queue.resume"},
      // Operator: auto-redrive, one opt-in policy per queue (core/autoredrive.h).
      {"GET", "/api/v1/autoredrive", kReadRoute, HandleListAutoredrive},
      {"GET", "/api/v1/queues/{name}/autoredrive", kReadRoute, HandleGetAutoredrive},
      {"PUT", "/api/v1/queues/{name}/autoredrive", kAdminOnly, HandlePutAutoredrive,
       "autoredrive.set"},
      {"DELETE", "/api/v1/queues/{name}/autoredrive", kAdminOnly, HandleDeleteAutoredrive,
       "autoredrive.delete"},
      // Operator: outgoing webhooks. Viewers may read them (secrets are never
      // shown after creation); only admins change or test them.
      {"GET", "/api/v1/outgoing-webhooks", kReadRoute, HandleListWebhooks},
      {"POST", "/api/v1/outgoing-webhooks", kAdminOnly, HandleCreateWebhook, "webhook.create"},
      {"GET", "/api/v1/outgoing-webhooks/{id}", kReadRoute, HandleGetWebhook},
      {"PUT", "/api/v1/outgoing-webhooks/{id}", kAdminOnly, HandleUpdateWebhook, "webhook.update"},
      {"DELETE", "/api/v1/outgoing-webhooks/{id}", kAdminOnly, HandleDeleteWebhook,
       "webhook.delete"},
      {"GET", "/api/v1/outgoing-webhooks/{id}/deliveries", kReadRoute, HandleListDeliveries},
      {"POST", "/api/v1/outgoing-webhooks/{id}/test", kAdminOnly, HandleTestWebhook,
       "webhook.test"},
      // Operator: schedules (cron jobs). Viewers read; admins change them.
      {"GET", "/api/v1/schedules", kReadRoute, HandleListSchedules},
      {"POST", "/api/v1/schedules", kAdminOnly, HandleCreateSchedule, "schedule.create"},
      // A literal segment wins over {id}: /schedules/preview is no schedule.
      {"GET", "/api/v1/schedules/preview", kReadRoute, HandlePreviewSchedule},
      {"GET", "/api/v1/schedules/{id}", kReadRoute, HandleGetSchedule},
      {"PUT", "/api/v1/schedules/{id}", kAdminOnly, HandleUpdateSchedule, "schedule.update"},
      {"DELETE", "/api/v1/schedules/{id}", kAdminOnly, HandleDeleteSchedule, "schedule.delete"},
      {"POST", "/api/v1/schedules/{id}/pause", kAdminOnly, HandlePauseSchedule, "schedule.pause"},
      {"POST", "/api/v1/schedules/{id}/resume", kAdminOnly, HandleResumeSchedule,
       "schedule.resume"},
      {"POST", "/api/v1/schedules/{id}/trigger", kAdminOnly, HandleTriggerSchedule,
       "schedule.trigger"},
      {"GET", "/api/v1/schedules/{id}/history", kReadRoute, HandleScheduleHistory},
      // Operator: stored API keys (the secret only in the create answer).
      {"GET", "/api/v1/api-keys", kAdminOnly, HandleListApiKeys},
      {"POST", "/api/v1/api-keys", kAdminOnly, HandleCreateApiKey, "api_key.create"},
      {"GET", "/api/v1/api-keys/{id}", kAdminOnly, HandleGetApiKey},
      {"PUT", "/api/v1/api-keys/{id}", kAdminOnly, HandleUpdateApiKey, "api_key.update"},
      {"DELETE", "/api/v1/api-keys/{id}", kAdminOnly, HandleRevokeApiKey, "api_key.revoke"},
      // Operator: the audit log. Viewers read it too, without client addresses.
      {"GET", "/api/v1/audit", kReadRoute, HandleListAudit},
  };
}

}  // namespace redrive::api
