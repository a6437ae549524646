#include "engine/webhooks/webhook_ops.h"

#include <limits>
#include <map>
#include <random>

#include "core/ids.h"
#include "core/json_text.h"
#include "core/webhook_event.h"

namespace redrive::engine::webhook_ops {
namespace {

const char* OutcomeName(const AttemptResult& result, bool gave_up) {
  if (result.success) return "delivered";
  return gave_up ? "gave_up" : "failed";
}

WebhookEvent TestEvent(const Webhook& w) {
  JsonObjectText data;
  data.Str("webhook_id", w.id).Str("name", w.name).Str("message", "Redrive test delivery");
  return {std::string(kWebhookTestEvent), data.Build(),
          "Redrive test message for webhook " + w.name};
}

}  // namespace

Result<std::vector<ClaimedDelivery>> ClaimDue(store::WriteTx& tx, TxContext& ctx, int limit,
                                              const DeliveryRetryPolicy& policy) {
  REDRIVE_ASSIGN_OR_RETURN(auto due, tx.SelectDueDeliveries(ctx.now, limit));
  std::map<std::string, Webhook> webhooks;
  std::vector<ClaimedDelivery> out;
  out.reserve(due.size());
  for (WebhookDelivery& d : due) {
    auto it = webhooks.find(d.webhook_id);
    if (it == webhooks.end()) {
      REDRIVE_ASSIGN_OR_RETURN(Webhook w, tx.GetWebhook(d.webhook_id));
      it = webhooks.emplace(d.webhook_id, std::move(w)).first;
    }
    ClaimedDelivery c;
    c.due_before_claim = d.next_attempt_at;
    d.next_attempt_at = ctx.now + policy.attempt_lease;
    d.reservation = NewUuidV7(ctx.now, ctx.random);
    REDRIVE_RETURN_IF_ERROR(tx.UpdateDelivery(d));
    // A completion delivery carries its job's URL; the rest go to their webhook's.
    c.url = d.url.value_or(it->second.url);
    c.delivery = std::move(d);
    c.secret = it->second.secret;
    c.signature_format = it->second.signature_format;
    out.push_back(std::move(c));
  }
  return out;
}

Status Unclaim(store::WriteTx& tx, const ClaimedDelivery& claimed) {
  auto stored = tx.GetDelivery(claimed.delivery.id);
  if (!stored.ok()) {
    return stored.status().code() == ErrorCode::kNotFound ? Status::Ok() : stored.status();
  }
  if (stored->status != DeliveryStatus::kPending) return Status::Ok();
  if (stored->reservation != claimed.delivery.reservation) return Status::Ok();
  stored->next_attempt_at = claimed.due_before_claim;
  stored->reservation.reset();
  return tx.UpdateDelivery(*stored);
}

Result<Recorded> RecordAttempt(store::WriteTx& tx, TxContext& ctx, const ClaimedDelivery& claimed,
                               const AttemptResult& result, const DeliveryRetryPolicy& policy) {
  Recorded recorded;
  auto stored = tx.GetDelivery(claimed.delivery.id);
  if (!stored.ok()) {
    if (stored.status().code() == ErrorCode::kNotFound) return recorded;
    return stored.status();
  }
  if (stored->status != DeliveryStatus::kPending) return recorded;
  // GetDelivery locked the row (store.h's locking contract), so no other
  // claim can slip between this check and the write.
  if (stored->reservation != claimed.delivery.reservation) {
    recorded.superseded = true;
    return recorded;
  }
  stored->reservation.reset();
  REDRIVE_ASSIGN_OR_RETURN(Webhook webhook, tx.GetWebhook(stored->webhook_id));

  if (claimed.test) {
    // A test says whether the receiver works now; it is not retried and
    // does not count toward (or reset) the webhook's failure streak.
    DeliveryRetryPolicy once = policy;
    once.max_attempts = 1;
    AttemptDecision d = DecideAfterAttempt(*stored, webhook, result, ctx.now, once);
    REDRIVE_RETURN_IF_ERROR(tx.UpdateDelivery(d.delivery));
    return recorded;
  }
  AttemptDecision d = DecideAfterAttempt(*stored, webhook, result, ctx.now, policy);
  REDRIVE_RETURN_IF_ERROR(tx.UpdateDelivery(d.delivery));
  REDRIVE_RETURN_IF_ERROR(tx.UpdateWebhook(d.webhook));
  ctx.effects.webhook_outcomes[OutcomeName(result, d.gave_up)] += 1;
  if (d.disabled_now) {
    ctx.effects.webhooks_disabled += 1;
    recorded.disabled_webhook = true;
  }
  return recorded;
}

Result<ClaimedDelivery> CreateTestDelivery(store::WriteTx& tx, TxContext& ctx,
                                           const std::string& webhook_id,
                                           const DeliveryRetryPolicy& policy) {
  REDRIVE_ASSIGN_OR_RETURN(Webhook webhook, tx.GetWebhook(webhook_id));
  if (IsCompletionWebhook(webhook)) {
    return Status::Conflict(
        "the completion webhook has no URL of its own to test: each of its deliveries goes to "
        "its job's completion_webhook");
  }
  ClaimedDelivery c;
  c.test = true;
  c.url = webhook.url;
  c.secret = webhook.secret;
  c.signature_format = webhook.signature_format;
  WebhookDelivery& d = c.delivery;
  d.id = NewUuidV7(ctx.now, ctx.random);
  d.webhook_id = webhook.id;
  d.event_id = NewUuidV7(ctx.now, ctx.random);
  d.event = std::string(kWebhookTestEvent);
  d.body = WebhookBody(webhook.format, d.event_id, TestEvent(webhook), ctx.now);
  d.created_at = ctx.now;
  // Reserved for its one attempt from the start, so the dispatcher's own
  // passes never pick it up (unless this node dies before recording it).
  d.next_attempt_at = ctx.now + policy.attempt_lease;
  d.reservation = NewUuidV7(ctx.now, ctx.random);
  c.due_before_claim = d.next_attempt_at;
  REDRIVE_RETURN_IF_ERROR(tx.InsertDelivery(d));
  return c;
}

std::string GenerateWebhookSecret() {
  std::random_device rd;  // getrandom on Linux
  unsigned char bytes[32];
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd() & 0xff);
  return FormatWebhookSecret(bytes);
}

Status EnsureCompletionWebhook(store::WriteTx& tx, TxContext& ctx) {
  if (ctx.completion_webhook_exists) return Status::Ok();
  Result<Webhook> found = tx.GetWebhook(std::string(kCompletionWebhookId));
  if (found.ok()) {
    ctx.completion_webhook_exists = true;
    return Status::Ok();
  }
  if (found.status().code() != ErrorCode::kNotFound) return found.status();
  // Not one of the operators' webhooks: it does not count against their limit.
  REDRIVE_RETURN_IF_ERROR(tx.InsertWebhook(NewCompletionWebhook(GenerateWebhookSecret(), ctx.now),
                                           std::numeric_limits<size_t>::max()));
  ctx.completion_webhook_exists = true;
  return Status::Ok();
}

}  // namespace redrive::engine::webhook_ops
