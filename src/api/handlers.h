// Every route's handler, grouped by the file that defines it. Each decodes
// the call, makes one engine call and encodes the answer (see call.h).
#pragma once

#include "api/call.h"

namespace redrive::api {

// enqueue_handlers.cc
void HandleEnqueue(Call& call);      // POST /jobs
void HandleEnqueueBulk(Call& call);  // POST /jobs/bulk

// lease_handlers.cc
void HandleClaim(Call& call);         // POST /jobs/claim
void HandleJobHeartbeat(Call& call);  // POST /jobs/{id}/heartbeat
void HandleComplete(Call& call);      // POST /jobs/{id}/complete
void HandleFail(Call& call);          // POST /jobs/{id}/fail
void HandleAck(Call& call);           // POST /jobs/ack
void HandleSnooze(Call& call);        // POST /jobs/{id}/snooze [ext]

// job_handlers.cc
void HandleListJobs(Call& call);     // GET /jobs
void HandleGetJob(Call& call);       // GET /jobs/{id}
void HandleJobStatuses(Call& call);  // GET /jobs/status
void HandleJobStats(Call& call);     // GET /jobs/stats
void HandleHistory(Call& call);      // GET /jobs/{id}/history
void HandleCancel(Call& call);       // DELETE /jobs/{id}
void HandleRetry(Call& call);        // POST /jobs/{id}/retry
void HandleSetPriority(Call& call);  // PUT /jobs/{id}/priority
void HandleSetPayload(Call& call);   // PUT /jobs/{id}/payload

// dlq_handlers.cc
void HandleListDlq(Call& call);     // GET /jobs/dlq
void HandleDlqSummary(Call& call);  // GET /jobs/dlq/summary
void HandleDlqRetry(Call& call);    // POST /jobs/dlq/retry
void HandleDlqPurge(Call& call);    // POST /jobs/dlq/purge

// Bulk operations [ext] (operation_handlers.cc).
void HandleCreateOperation(Call& call);  // POST /operations
void HandleListOperations(Call& call);   // GET /operations
void HandleGetOperation(Call& call);     // GET /operations/{id}
void HandleCancelOperation(Call& call);  // POST /operations/{id}/cancel

// autoredrive_handlers.cc
void HandleListAutoredrive(Call& call);    // GET /autoredrive
void HandleGetAutoredrive(Call& call);     // GET /queues/{name}/autoredrive
void HandlePutAutoredrive(Call& call);     // PUT /queues/{name}/autoredrive
void HandleDeleteAutoredrive(Call& call);  // DELETE /queues/{name}/autoredrive

// Quarantine [ext] (quarantine_handlers.cc).
void HandleRelease(Call& call);      // POST /jobs/{id}/release
void HandleBulkRelease(Call& call);  // POST /jobs/quarantine/release

// worker_handlers.cc
void HandleRegisterWorker(Call& call);    // POST /workers/register
void HandleWorkerHeartbeat(Call& call);   // POST /workers/{id}/heartbeat
void HandleDeregisterWorker(Call& call);  // POST /workers/{id}/deregister
void HandleListWorkers(Call& call);       // GET /workers
void HandleGetWorker(Call& call);         // GET /workers/{id}

// queue_handlers.cc
void HandleListQueues(Call& call);      // GET /queues
void HandleGetQueue(Call& call);        // GET /queues/{name}
void HandleQueueStats(Call& call);      // GET /queues/{name}/stats
void HandleConfigureQueue(Call& call);  // PUT /queues/{name}/config
void HandlePauseQueue(Call& call);      // POST /queues/{name}/pause
void HandleResumeQueue(Call& call);     // POST /queues/{name}/resume
void HandleDeleteQueue(Call& call);     // DELETE /queues/{name}

// webhook_handlers.cc
void HandleListWebhooks(Call& call);    // GET /outgoing-webhooks
void HandleCreateWebhook(Call& call);   // POST /outgoing-webhooks
void HandleGetWebhook(Call& call);      // GET /outgoing-webhooks/{id}
void HandleUpdateWebhook(Call& call);   // PUT /outgoing-webhooks/{id}
void HandleDeleteWebhook(Call& call);   // DELETE /outgoing-webhooks/{id}
void HandleListDeliveries(Call& call);  // GET /outgoing-webhooks/{id}/deliveries
void HandleTestWebhook(Call& call);     // POST /outgoing-webhooks/{id}/test

// schedule_handlers.cc
void HandleListSchedules(Call& call);    // GET /schedules
void HandleCreateSchedule(Call& call);   // POST /schedules
void HandleGetSchedule(Call& call);      // GET /schedules/{id}
void HandleUpdateSchedule(Call& call);   // PUT /schedules/{id}
void HandleDeleteSchedule(Call& call);   // DELETE /schedules/{id}
void HandlePauseSchedule(Call& call);    // POST /schedules/{id}/pause
void HandleResumeSchedule(Call& call);   // POST /schedules/{id}/resume
void HandleTriggerSchedule(Call& call);  // POST /schedules/{id}/trigger
void HandleScheduleHistory(Call& call);  // GET /schedules/{id}/history
void HandlePreviewSchedule(Call& call);  // GET /schedules/preview

// workflow_handlers.cc
void HandleListWorkflows(Call& call);      // GET /workflows
void HandleCreateWorkflow(Call& call);     // POST /workflows
void HandleGetWorkflow(Call& call);        // GET /workflows/{id}
void HandleCancelWorkflow(Call& call);     // POST /workflows/{id}/cancel
void HandleRetryWorkflow(Call& call);      // POST /workflows/{id}/retry
void HandleWorkflowJobs(Call& call);       // GET /workflows/{id}/jobs
void HandleWorkflowJob(Call& call);        // GET /workflows/{id}/jobs/{job_id}
void HandleWorkflowJobStatus(Call& call);  // GET /workflows/{id}/jobs/status
void HandleGetDependencies(Call& call);    // GET /jobs/{id}/dependencies
void HandleAddDependencies(Call& call);    // POST /jobs/{id}/dependencies

// api_key_handlers.cc (admin only)
void HandleListApiKeys(Call& call);   // GET /api-keys
void HandleCreateApiKey(Call& call);  // POST /api-keys
void HandleGetApiKey(Call& call);     // GET /api-keys/{id}
void HandleUpdateApiKey(Call& call);  // PUT /api-keys/{id}
void HandleRevokeApiKey(Call& call);  // DELETE /api-keys/{id}

// auth_token_handlers.cc: the token exchange (Spooled's /auth)
void HandleLogin(Call& call);          // POST /auth/login (public: the key is in the body)
void HandleRefresh(Call& call);        // POST /auth/refresh (public)
void HandleValidateToken(Call& call);  // POST /auth/validate (public)
void HandleAuthMe(Call& call);         // GET /auth/me
void HandleLogout(Call& call);         // POST /auth/logout

// audit_handlers.cc
void HandleListAudit(Call& call);  // GET /audit [ext]

// health_handlers.cc
void HandleHealth(Call& call);       // GET /health
void HandleHealthLive(Call& call);   // GET /health/live
void HandleHealthReady(Call& call);  // GET /health/ready

// metrics_handlers.cc
void HandleMetrics(Call& call);  // GET /metrics

// session_handlers.cc
void HandleMe(Call& call);  // GET /me [ext]

// dashboard_handlers.cc
void HandleDashboard(Call& call);  // GET /dashboard

// throughput_handlers.cc
void HandleThroughput(Call& call);  // GET /throughput [ext]

// console_handlers.cc
void HandleConsoleIndex(Call& call);  // GET /
void HandleConsoleFile(Call& call);   // GET /console/{file}

}  // namespace redrive::api
