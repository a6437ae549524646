// Validating the bodies of POST and PUT /outgoing-webhooks[/{id}]:
//   name     1..100 bytes
//   url      absolute http:// or https:// URL with a host, ≤ 2048 bytes; unless
//            private targets are allowed, not a host that is a literal
//            non-global address in any notation (127.1, 2130706433,
//            [::ffff:10.0.0.1], 169.254.169.254) or localhost. Names are
//            checked once resolved, by the sender at send time.
//   events   non-empty array of known event names (duplicates dropped)
//   secret   1..256 bytes (optional; generated on create when absent)
//   enabled  boolean
//   format   "json" (default) or "slack" [ext]
// Every failure is a VALIDATION_ERROR whose details.field names the field.
#pragma once

#include <boost/json/object.hpp>

#include "core/status.h"
#include "engine/webhooks/webhook_types.h"

namespace redrive::api {

struct ApiOptions;  // api/api.h

// What a webhook URL may point at (ApiOptions::webhook_allow_private_targets).
struct WebhookUrlRules {
  bool allow_private_targets = false;
};
WebhookUrlRules WebhookUrlRulesOf(const ApiOptions& options);

// POST: name, url and events are required.
Result<engine::CreateWebhookParams> DecodeCreateWebhook(const boost::json::object& body,
                                                        const WebhookUrlRules& rules);
// PUT: every field optional; given ones are checked as for POST.
Result<engine::WebhookPatch> DecodeWebhookPatch(const boost::json::object& body,
                                                const WebhookUrlRules& rules);

// The longest URL a webhook or a job's completion_webhook may have.
inline constexpr size_t kMaxWebhookUrlBytes = 2048;

// OK for an absolute http(s) URL with a host the rules allow; else a
// VALIDATION_ERROR naming `field`.
Status CheckWebhookUrl(const std::string& url, const WebhookUrlRules& rules,
                       const std::string& field = "url");

}  // namespace redrive::api
