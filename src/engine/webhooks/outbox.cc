#include "engine/webhooks/outbox.h"

#include "core/ids.h"
#include "engine/webhooks/subscriptions.h"

namespace redrive::engine {

Status WriteOutbox(store::WriteTx& tx, TxContext& ctx) {
  for (const WebhookEvent& event : ctx.webhook_events) {
    // One event id for every webhook it goes to: receivers dedupe on it.
    const std::string event_id = NewUuidV7(ctx.now, ctx.random);
    std::string json_body;  // built once, shared by every json-format webhook
    for (const Webhook& w : ctx.webhooks->webhooks) {
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
  }
  ctx.webhook_events.clear();
  return Status::Ok();
}

}  // namespace redrive::engine
