#include "engine/webhooks/outbox.h"

#include <variant>

#include "core/ids.h"
#include "core/outcome.h"

namespace redrive::engine {

Status WebhookOutbox::BeginTransaction(store::WriteTx& tx, TxContext& ctx) {
  REDRIVE_ASSIGN_OR_RETURN(ctx.subscriptions, subscriptions_.ForTransaction(tx));
  ctx.completion_webhook_exists = ctx.subscriptions->completion_webhook;
  if (ctx.subscriptions->empty()) ctx.subscriptions.reset();
  return Status::Ok();
}

Status WebhookOutbox::OnJob(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) {
  if (write.job.completion_webhook) REDRIVE_RETURN_IF_ERROR(WriteCompletion(tx, ctx, write));
  if (ctx.subscriptions == nullptr) return Status::Ok();
  for (const EmittedWebhook& emit : Describe(write.outcome).webhooks) {
    if (emit.event == nullptr) break;
    if (!ctx.subscriptions->Wants(emit.event)) continue;
    JobEventExtras extras{.will_retry = emit.will_retry};
    if (emit.retry_source) {
      // Only a Retry event has a retry-source outcome; it says who asked.
      extras.source = std::get<event::Retry>(*write.event).source;
    }
    REDRIVE_RETURN_IF_ERROR(Write(tx, ctx, JobWebhookEvent(emit.event, write.job, extras)));
  }
  return Status::Ok();
}

Status WebhookOutbox::OnQueue(store::WriteTx& tx, TxContext& ctx, const QueueWrite& write) {
  if (ctx.subscriptions == nullptr) return Status::Ok();
  const std::string_view name = QueueWebhookEventName(write.outcome);
  if (!ctx.subscriptions->Wants(name)) return Status::Ok();
  return Write(tx, ctx, QueueWebhookEvent(name, write.queue_name, write.reason));
}

Status WebhookOutbox::OnWorker(store::WriteTx& tx, TxContext& ctx, const WorkerWrite& write) {
  if (ctx.subscriptions == nullptr) return Status::Ok();
  const std::string_view name = WorkerWebhookEventName(write.outcome);
  if (!ctx.subscriptions->Wants(name)) return Status::Ok();
  return Write(tx, ctx, WorkerWebhookEvent(name, write.worker));
}

Status WebhookOutbox::OnSchedule(store::WriteTx& tx, TxContext& ctx, const ScheduleWrite& write) {
  if (ctx.subscriptions == nullptr || !ctx.subscriptions->Wants("schedule.triggered")) {
    return Status::Ok();
  }
  return Write(tx, ctx, ScheduleWebhookEvent(write.schedule, write.run));
}

Status WebhookOutbox::OnWorkflow(store::WriteTx& tx, TxContext& ctx, const WorkflowWrite& write) {
  if (ctx.subscriptions == nullptr) return Status::Ok();
  if (!ctx.subscriptions->Wants(WorkflowWebhookEventName(write.outcome))) return Status::Ok();
  return Write(tx, ctx, WorkflowWebhookEvent(write.outcome, write.workflow));
}

Status WebhookOutbox::OnAutoredrive(store::WriteTx& tx, TxContext& ctx,
                                    const AutoredriveWrite& write) {
  if (ctx.subscriptions == nullptr || !ctx.subscriptions->Wants(kAutoredriveWebhookEvent)) {
    return Status::Ok();
  }
  return Write(tx, ctx,
               AutoredriveWebhookEvent(write.policy, write.state, write.decision, write.redriven));
}

Status WebhookOutbox::WriteCompletion(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) {
  for (const EmittedWebhook& emit : Describe(write.outcome).webhooks) {
    if (emit.event == nullptr) break;
    if (!IsCompletionEvent(emit.event)) continue;
    const std::string event_id = NewUuidV7(ctx.now, ctx.random);
    WebhookDelivery d;
    d.id = NewUuidV7(ctx.now, ctx.random);
    d.webhook_id = std::string(kCompletionWebhookId);
    d.event_id = event_id;
    d.event = emit.event;
    d.body = WebhookEnvelope(
        event_id, JobWebhookEvent(emit.event, write.job, {.will_retry = emit.will_retry}), ctx.now);
    d.created_at = ctx.now;
    d.next_attempt_at = ctx.now;
    d.url = write.job.completion_webhook;
    // Written only while the built-in webhook exists (the store's insert
    // checks it): it is made with the first job that names a URL.
    REDRIVE_RETURN_IF_ERROR(tx.InsertDelivery(d));
    ctx.effects.wrote_deliveries = true;
  }
  return Status::Ok();
}

Status WebhookOutbox::Write(store::WriteTx& tx, TxContext& ctx, const WebhookEvent& event) {
  // One event id for every webhook it goes to: receivers dedupe on it.
  const std::string event_id = NewUuidV7(ctx.now, ctx.random);
  std::string json_body;  // built once, shared by every json-format webhook
  for (const Webhook& w : ctx.subscriptions->webhooks) {
    if (!WebhookWants(w, event.name)) continue;
    WebhookDelivery d;
    d.id = NewUuidV7(ctx.now, ctx.random);
    d.webhook_id = w.id;
    d.event_id = event_id;
    d.event = event.name;
    if (w.format == WebhookFormat::kJson) {
      if (json_body.empty()) json_body = WebhookEnvelope(event_id, event, ctx.now);
      d.body = json_body;
    } else {
      d.body = WebhookBody(w.format, event_id, event, ctx.now);
    }
    d.created_at = ctx.now;
    d.next_attempt_at = ctx.now;
    REDRIVE_RETURN_IF_ERROR(tx.InsertDelivery(d));
    ctx.effects.wrote_deliveries = true;
  }
  return Status::Ok();
}

}  // namespace redrive::engine
