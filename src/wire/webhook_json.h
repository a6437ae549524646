// JSON of outgoing webhooks and their deliveries (GET/POST/PUT
// /outgoing-webhooks...). A webhook's secret is never encoded here: only the
// create response adds it, once (api/webhook_handlers.cc).
#pragma once

#include <boost/json/object.hpp>

#include "core/webhook.h"

namespace redrive::wire {

// {id, name, url, events, enabled, format, has_secret, consecutive_failures,
//  disabled_reason, created_at, updated_at, last_delivery_at}
boost::json::object WebhookToJson(const Webhook& w);

// {id, webhook_id, event_id, event, status, attempts, next_attempt_at (null
//  unless pending), last_status_code, last_error, created_at, delivered_at,
//  duration_ms, body (the JSON POSTed)}
boost::json::object DeliveryToJson(const WebhookDelivery& d);

}  // namespace redrive::wire
