// Outgoing webhooks: the model and the pure rules of delivery (which events a
// webhook wants, when a failed delivery is tried again, when it is given up,
// when a webhook that keeps failing is disabled). No I/O; the engine's
// dispatcher applies these decisions, the store keeps the rows.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"

namespace redrive {

// The events a webhook may subscribe to (the contract's list).
inline constexpr std::string_view kWebhookEventNames[] = {
    "job.created",        "job.started",        "job.completed",     "job.failed",
    "job.deadlettered",   "job.retried",        "job.cancelled",     "job.quarantined",
    "queue.paused",       "queue.resumed",      "worker.registered", "worker.deregistered",
    "schedule.triggered", "workflow.completed", "workflow.failed",   "dlq.autoredrive"};
bool IsWebhookEvent(std::string_view name);
// kWebhookEventNames joined with ", " (error messages).
std::string WebhookEventNames();
// Sent only by POST /outgoing-webhooks/{id}/test, whatever the subscription.
inline constexpr std::string_view kWebhookTestEvent = "webhook.test";

// How a webhook wants its body: the standard envelope, or a chat message
// built from the event's one-line summary: Slack-compatible {"text": ...}
// (incoming-webhook URLs of Slack, Mattermost, ...), Discord's {"content": ...}
// or a Microsoft Teams Adaptive Card (a Teams "workflow" webhook).
enum class WebhookFormat { kJson, kSlack, kDiscord, kTeams };
const char* WebhookFormatName(WebhookFormat f);  // "json", "slack", "discord", "teams"
std::optional<WebhookFormat> ParseWebhookFormat(std::string_view s);
// Every format's name, quoted and joined with ", " (error messages).
std::string WebhookFormatNames();

// Which headers sign a delivery: Redrive's (X-Redrive-Signature,
// X-Redrive-Timestamp, X-Redrive-Event, X-Redrive-Delivery) or Spooled's
// (X-Spooled-Signature, X-Spooled-Timestamp, X-Spooled-Event,
// X-Spooled-Delivery-Attempt), so a receiver written for Spooled verifies
// Redrive's deliveries unchanged. The HMAC is the same: "sha256=" + hex
// HMAC-SHA256(secret, "<timestamp>.<body>").
enum class SignatureFormat { kRedrive, kSpooled };
const char* SignatureFormatName(SignatureFormat f);  // "redrive", "spooled"
std::optional<SignatureFormat> ParseSignatureFormat(std::string_view s);

// A webhook disables itself after this many failed attempts in a row.
inline constexpr int kMaxConsecutiveFailures = 20;

struct Webhook {
  std::string id;  // UUIDv7
  std::string name;
  std::string url;                  // absolute http:// or https:// URL
  std::vector<std::string> events;  // subscribed event names, each IsWebhookEvent
  std::string secret;               // HMAC key; never returned after creation
  bool enabled = true;
  WebhookFormat format = WebhookFormat::kJson;
  SignatureFormat signature_format = SignatureFormat::kRedrive;
  int consecutive_failures = 0;                // failed attempts since the last success
  std::optional<std::string> disabled_reason;  // set when it disabled itself
  Instant created_at{};
  Instant updated_at{};
  std::optional<Instant> last_delivery_at;  // last attempt, whatever its outcome

  friend bool operator==(const Webhook&, const Webhook&) = default;
};

// True when `webhook` is enabled and subscribed to `event`.
bool WebhookWants(const Webhook& webhook, std::string_view event);

enum class DeliveryStatus { kPending, kDelivered, kFailed };
const char* DeliveryStatusName(DeliveryStatus s);  // "pending", "delivered", "failed"
std::optional<DeliveryStatus> ParseDeliveryStatus(std::string_view s);

// One event to one webhook: a row of the durable outbox.
struct WebhookDelivery {
  std::string id;  // UUIDv7; sent as X-Redrive-Delivery
  std::string webhook_id;
  std::string event_id;  // the envelope's "id": the same for every webhook of one event
  std::string event;     // "job.failed", ...
  std::string body;      // the exact JSON text POSTed
  DeliveryStatus status = DeliveryStatus::kPending;
  int attempts = 0;
  // When it is next due. While an attempt is in flight it is pushed to the
  // end of that attempt's lease (see DeliveryRetryPolicy::attempt_lease), so
  // a node that dies mid-attempt leaves the delivery due again, not lost.
  Instant next_attempt_at{};
  std::optional<int> last_status_code;
  std::optional<std::string> last_error;
  Instant created_at{};
  std::optional<Instant> delivered_at;
  std::optional<long long> duration_ms;  // of the last attempt
  // The token of the attempt that holds the delivery (a fresh UUIDv7 each
  // time it is reserved); cleared when that attempt is recorded or given
  // back (one whose node died stays, lapsed, until the next reservation
  // replaces it). A reservation that lapsed and was taken again gets a new
  // token, so the first attempt's late outcome is recognised and not
  // recorded: each attempt is recorded at most once, and only by the
  // attempt that holds the delivery. Internal: never part of any wire output.
  std::optional<std::string> reservation;
  // Where it goes when not to its webhook's url: a job's completion_webhook
  // (the built-in completion webhook's deliveries). Unset for the rest.
  std::optional<std::string> url;

  friend bool operator==(const WebhookDelivery&, const WebhookDelivery&) = default;
};

struct DeliveryRetryPolicy {
  // Delay after the n-th failed attempt: min(base · 2^(n−1), max).
  std::chrono::milliseconds base{5000};
  std::chrono::milliseconds max{std::chrono::hours(1)};
  // After this many failed attempts the delivery is `failed` (given up):
  // with the defaults, 5 s … 1 h apart, about 5.4 hours after the event.
  int max_attempts = 15;
  // How long a claimed delivery stays reserved for its sender: longer than
  // the POST timeout, so only a node that died mid-attempt lets it lapse.
  std::chrono::seconds attempt_lease{60};
};

// min(base · 2^(failed_attempts−1), max); base when failed_attempts <= 1.
Micros DeliveryRetryDelay(const DeliveryRetryPolicy& policy, int failed_attempts);

// What one POST returned.
struct AttemptResult {
  bool success = false;  // a 2xx answer
  std::optional<int> status_code;
  std::optional<std::string> error;  // transport error or "HTTP 500"; short
  std::chrono::milliseconds duration{0};
};

// The delivery and its webhook after an attempt.
struct AttemptDecision {
  WebhookDelivery delivery;
  Webhook webhook;
  bool gave_up = false;       // the delivery is now `failed`
  bool disabled_now = false;  // this attempt disabled the webhook
};

// REQUIRES: delivery.status is pending. Success: delivered, the webhook's
// failure count reset. Failure: retried after DeliveryRetryDelay, or given up
// after policy.max_attempts; the webhook's failure count grows and at
// kMaxConsecutiveFailures the webhook is disabled with a reason.
AttemptDecision DecideAfterAttempt(const WebhookDelivery& delivery, const Webhook& webhook,
                                   const AttemptResult& result, Instant now,
                                   const DeliveryRetryPolicy& policy);

// "whsec_" + 64 hex digits (32 random bytes) from `random_bytes`.
std::string FormatWebhookSecret(const unsigned char (&random_bytes)[32]);

// The built-in completion webhook: the one row that carries every job's
// completion_webhook delivery. Its secret signs them, its delivery log lists
// them, disabling it holds them (they stay pending until it is enabled
// again). The engine creates it with the first job that names a
// completion_webhook. It subscribes to no event (each delivery's url is the
// job's own), never disables itself after failures (one receiver's outage
// must not stop every other's callbacks), and it cannot be deleted, nor its
// url, events or format changed.
inline constexpr std::string_view kCompletionWebhookId = "00000000-0000-7000-8000-000000000001";
inline constexpr std::string_view kCompletionWebhookName = "job-completion";
bool IsCompletionWebhook(const Webhook& w);
// The job events a completion_webhook is sent for.
inline constexpr std::string_view kCompletionEvents[] = {"job.completed", "job.deadlettered",
                                                         "job.cancelled"};
bool IsCompletionEvent(std::string_view event);
// The built-in completion webhook, created at `now` with `secret`.
Webhook NewCompletionWebhook(std::string secret, Instant now);

}  // namespace redrive
