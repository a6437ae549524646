// Validating the bodies of POST and PUT /outgoing-webhooks[/{id}]:
//   name     1..100 bytes
//   url      absolute http:// or https:// URL with a host, ≤ 2048 bytes
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

// POST: name, url and events are required.
Result<engine::CreateWebhookParams> DecodeCreateWebhook(const boost::json::object& body);
// PUT: every field optional; given ones are checked as for POST.
Result<engine::WebhookPatch> DecodeWebhookPatch(const boost::json::object& body);

// OK for an absolute http(s) URL with a host.
Status CheckWebhookUrl(const std::string& url);

}  // namespace redrive::api
