// Parameters and results of the engine's webhook operations, and the
// dispatcher's options.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/webhook.h"

namespace redrive::engine {

// POST /outgoing-webhooks, validated by the API.
struct CreateWebhookParams {
  std::string name;
  std::string url;
  std::vector<std::string> events;
  std::optional<std::string> secret;  // generated when absent
  bool enabled = true;
  WebhookFormat format = WebhookFormat::kJson;
  SignatureFormat signature_format = SignatureFormat::kRedrive;
};

// PUT /outgoing-webhooks/{id}: only the given fields change.
struct WebhookPatch {
  std::optional<std::string> name;
  std::optional<std::string> url;
  std::optional<std::vector<std::string>> events;
  std::optional<std::string> secret;
  std::optional<bool> enabled;  // true re-arms a disabled webhook (failures reset)
  std::optional<WebhookFormat> format;
  std::optional<SignatureFormat> signature_format;
};

// POST /outgoing-webhooks/{id}/test.
struct WebhookTestResult {
  std::string delivery_id;
  AttemptResult attempt;
};

struct WebhookDispatchOptions {
  // Deliveries sent at once (each on its own sender thread).
  int concurrency = 4;
  DeliveryRetryPolicy policy;
  // How often the subscriptions are re-read from the store (other nodes'
  // changes) and the outbox is checked without a wake-up.
  std::chrono::milliseconds refresh_interval{5000};
  // Finished (delivered or failed) deliveries are deleted after this long.
  std::chrono::hours retention{24 * 7};
  // false: no dispatcher threads; tests call Engine::RunWebhooksOnce().
  bool run_threads = true;
};

}  // namespace redrive::engine
