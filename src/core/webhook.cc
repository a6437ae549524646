#include "core/webhook.h"

#include <algorithm>
#include <iterator>

#include "core/time_format.h"

namespace redrive {

bool IsWebhookEvent(std::string_view name) {
  return std::find(std::begin(kWebhookEventNames), std::end(kWebhookEventNames), name) !=
         std::end(kWebhookEventNames);
}

std::string WebhookEventNames() {
  std::string out;
  for (std::string_view name : kWebhookEventNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

namespace {

struct FormatName {
  WebhookFormat format;
  const char* name;
};
constexpr FormatName kFormatNames[] = {{WebhookFormat::kJson, "json"},
                                       {WebhookFormat::kSlack, "slack"},
                                       {WebhookFormat::kDiscord, "discord"},
                                       {WebhookFormat::kTeams, "teams"}};

}  // namespace

const char* WebhookFormatName(WebhookFormat f) {
  for (const FormatName& entry : kFormatNames) {
    if (entry.format == f) return entry.name;
  }
  return "json";
}

std::optional<WebhookFormat> ParseWebhookFormat(std::string_view s) {
  for (const FormatName& entry : kFormatNames) {
    if (s == entry.name) return entry.format;
  }
  return std::nullopt;
}

std::string WebhookFormatNames() {
  std::string out;
  for (const FormatName& entry : kFormatNames) {
    out += (out.empty() ? "\"" : ", \"") + std::string(entry.name) + "\"";
  }
  return out;
}

const char* SignatureFormatName(SignatureFormat f) {
  return f == SignatureFormat::kSpooled ? "spooled" : "redrive";
}

std::optional<SignatureFormat> ParseSignatureFormat(std::string_view s) {
  if (s == "redrive") return SignatureFormat::kRedrive;
  if (s == "spooled") return SignatureFormat::kSpooled;
  return std::nullopt;
}

bool WebhookWants(const Webhook& webhook, std::string_view event) {
  if (!webhook.enabled) return false;
  return std::find(webhook.events.begin(), webhook.events.end(), event) != webhook.events.end();
}

const char* DeliveryStatusName(DeliveryStatus s) {
  switch (s) {
    case DeliveryStatus::kPending:
      return "pending";
    case DeliveryStatus::kDelivered:
      return "delivered";
    case DeliveryStatus::kFailed:
      return "failed";
  }
  return "pending";
}

std::optional<DeliveryStatus> ParseDeliveryStatus(std::string_view s) {
  if (s == "pending") return DeliveryStatus::kPending;
  if (s == "delivered") return DeliveryStatus::kDelivered;
  if (s == "failed") return DeliveryStatus::kFailed;
  return std::nullopt;
}

Micros DeliveryRetryDelay(const DeliveryRetryPolicy& policy, int failed_attempts) {
  Micros delay = policy.base;
  const Micros cap = policy.max;
  // Doubling stops at the cap, so no step can overflow.
  for (int i = 1; i < failed_attempts && delay < cap; ++i) delay *= 2;
  return std::min(delay, cap);
}

AttemptDecision DecideAfterAttempt(const WebhookDelivery& delivery, const Webhook& webhook,
                                   const AttemptResult& result, Instant now,
                                   const DeliveryRetryPolicy& policy) {
  AttemptDecision d{delivery, webhook};
  d.delivery.attempts += 1;
  d.delivery.last_status_code = result.status_code;
  d.delivery.last_error = result.error;
  d.delivery.duration_ms = result.duration.count();
  d.webhook.last_delivery_at = now;
  if (result.success) {
    d.delivery.status = DeliveryStatus::kDelivered;
    d.delivery.delivered_at = now;
    d.delivery.next_attempt_at = now;
    d.webhook.consecutive_failures = 0;
    return d;
  }
  if (d.delivery.attempts >= policy.max_attempts) {
    d.delivery.status = DeliveryStatus::kFailed;
    d.delivery.next_attempt_at = now;
    d.gave_up = true;
  } else {
    d.delivery.next_attempt_at = AddClamped(now, DeliveryRetryDelay(policy, d.delivery.attempts));
  }
  // The built-in completion webhook's deliveries go to many receivers: one
  // that fails must not stop the others' callbacks.
  if (IsCompletionWebhook(webhook)) return d;
  d.webhook.consecutive_failures += 1;
  if (d.webhook.enabled && d.webhook.consecutive_failures >= kMaxConsecutiveFailures) {
    d.webhook.enabled = false;
    d.webhook.disabled_reason =
        std::to_string(d.webhook.consecutive_failures) +
        " consecutive failed deliveries; last: " + result.error.value_or("unknown error");
    d.webhook.updated_at = now;
    d.disabled_now = true;
  }
  return d;
}

std::string FormatWebhookSecret(const unsigned char (&random_bytes)[32]) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "whsec_";
  for (unsigned char b : random_bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

bool IsCompletionWebhook(const Webhook& w) { return w.id == kCompletionWebhookId; }

bool IsCompletionEvent(std::string_view event) {
  for (std::string_view e : kCompletionEvents) {
    if (e == event) return true;
  }
  return false;
}

Webhook NewCompletionWebhook(std::string secret, Instant now) {
  Webhook w;
  w.id = std::string(kCompletionWebhookId);
  w.name = std::string(kCompletionWebhookName);
  // Never POSTed to: each delivery carries its job's url. A valid URL all
  // the same, so every reader of webhooks can treat it as one.
  w.url = "https://completion-webhook.invalid/";
  w.secret = std::move(secret);
  w.created_at = w.updated_at = now;
  return w;
}

}  // namespace redrive
