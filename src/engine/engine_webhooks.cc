// Outgoing webhooks: create, read, update, delete, the delivery log, test.
// Every write, once committed and before it is answered, re-reads the
// subscription snapshot the outbox uses (Impl::WriteWebhooks), so the next
// request sees the change.
#include "core/ids.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/webhooks/webhook_ops.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

// The built-in completion webhook keeps its shape: only its secret, its
// signature format and whether it is enabled may change.
Status CheckCompletionWebhookPatch(const WebhookPatch& patch) {
  const char* field = patch.name     ? "name"
                      : patch.url    ? "url"
                      : patch.events ? "events"
                      : patch.format ? "format"
                                     : nullptr;
  if (field == nullptr) return Status::Ok();
  return Status::Validation(field, std::string("the built-in completion webhook's ") + field +
                                       " cannot change (only secret, signature_format and "
                                       "enabled may)");
}

}  // namespace

void Engine::ListWebhooks(Callback<std::vector<Webhook>> done) {
  impl_->Read<std::vector<Webhook>>([](ReadTx& tx) { return tx.ListWebhooks(); }, std::move(done));
}

void Engine::GetWebhook(std::string id, Callback<Webhook> done) {
  impl_->Read<Webhook>([id = std::move(id)](ReadTx& tx) { return tx.GetWebhook(id); },
                       std::move(done));
}

void Engine::CreateWebhook(CreateWebhookParams p, Callback<Webhook> done) {
  if (!p.secret) p.secret = webhook_ops::GenerateWebhookSecret();
  impl_->WriteWebhooks<Webhook>(
      [p = std::move(p), max_webhooks = impl_->options.max_webhooks](
          WriteTx& tx, TxContext& ctx) -> Result<Webhook> {
        Webhook w;
        w.id = NewUuidV7(ctx.now, ctx.random);
        w.name = p.name;
        w.url = p.url;
        w.events = p.events;
        w.secret = *p.secret;
        w.enabled = p.enabled;
        w.format = p.format;
        w.signature_format = p.signature_format;
        w.created_at = w.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.InsertWebhook(w, max_webhooks));
        return w;
      },
      std::move(done));
}

void Engine::UpdateWebhook(std::string id, WebhookPatch patch, Callback<Webhook> done) {
  impl_->WriteWebhooks<Webhook>(
      [id = std::move(id), patch = std::move(patch)](WriteTx& tx,
                                                     TxContext& ctx) -> Result<Webhook> {
        REDRIVE_ASSIGN_OR_RETURN(Webhook w, tx.GetWebhook(id));
        if (IsCompletionWebhook(w)) REDRIVE_RETURN_IF_ERROR(CheckCompletionWebhookPatch(patch));
        if (patch.name) w.name = *patch.name;
        if (patch.url) w.url = *patch.url;
        if (patch.events) w.events = *patch.events;
        if (patch.secret) w.secret = *patch.secret;
        if (patch.format) w.format = *patch.format;
        if (patch.signature_format) w.signature_format = *patch.signature_format;
        if (patch.enabled) {
          // Enabling re-arms the webhook: its failure streak starts over
          // and its pending deliveries are sent again.
          if (*patch.enabled && !w.enabled) {
            w.consecutive_failures = 0;
            w.disabled_reason.reset();
          }
          w.enabled = *patch.enabled;
        }
        w.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.UpdateWebhook(w));
        // Re-enabled deliveries are due: let the dispatcher look now.
        if (w.enabled) ctx.effects.wrote_deliveries = true;
        return w;
      },
      std::move(done));
}

void Engine::DeleteWebhook(std::string id, StatusCallback done) {
  impl_->WriteWebhooks<bool>(
      [id = std::move(id)](WriteTx& tx, TxContext&) -> Result<bool> {
        if (id == kCompletionWebhookId) {
          return Status::Conflict(
              "the built-in completion webhook cannot be deleted: jobs name it by their "
              "completion_webhook; disable it to hold their deliveries");
        }
        REDRIVE_RETURN_IF_ERROR(tx.DeleteWebhook(id));
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

void Engine::ListDeliveries(ListDeliveriesParams p, Callback<std::vector<WebhookDelivery>> done) {
  store::DeliveryFilter f;
  f.webhook_id = std::move(p.webhook_id);
  f.status = p.status;
  f.limit = p.limit;
  f.offset = p.offset;
  impl_->Read<std::vector<WebhookDelivery>>(
      [f = std::move(f)](ReadTx& tx) -> Result<std::vector<WebhookDelivery>> {
        REDRIVE_RETURN_IF_ERROR(tx.GetWebhook(f.webhook_id).status());
        return tx.ListDeliveries(f);
      },
      std::move(done));
}

void Engine::TestWebhook(std::string id, Callback<WebhookTestResult> done) {
  if (!impl_->dispatcher) {
    return done(Status::Unavailable("webhook delivery is not enabled on this server"));
  }
  const DeliveryRetryPolicy policy = impl_->options.webhooks.policy;
  impl_->Write<webhook_ops::ClaimedDelivery>(
      [id = std::move(id), policy](WriteTx& tx,
                                   TxContext& ctx) -> Result<webhook_ops::ClaimedDelivery> {
        return webhook_ops::CreateTestDelivery(tx, ctx, id, policy);
      },
      [this, done = std::move(done)](Result<webhook_ops::ClaimedDelivery> claimed) {
        if (!claimed.ok()) return done(claimed.status());
        std::string delivery_id = claimed->delivery.id;
        impl_->dispatcher->SendNow(std::move(*claimed), [done, delivery_id](AttemptResult attempt) {
          done(WebhookTestResult{delivery_id, std::move(attempt)});
        });
      });
}

}  // namespace redrive::engine
