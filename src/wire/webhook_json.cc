#include "wire/webhook_json.h"

#include <boost/json/value_from.hpp>

#include "wire/json_text.h"
#include "wire/time_json.h"

namespace redrive::wire {

using boost::json::value_from;  // an unset std::optional becomes null

boost::json::object WebhookToJson(const Webhook& w) {
  return {{"id", w.id},
          {"name", w.name},
          {"url", w.url},
          {"events", value_from(w.events)},
          {"enabled", w.enabled},
          {"format", WebhookFormatName(w.format)},
          {"signature_format", SignatureFormatName(w.signature_format)},
          {"has_secret", !w.secret.empty()},
          {"consecutive_failures", w.consecutive_failures},
          {"disabled_reason", value_from(w.disabled_reason)},
          {"created_at", TimeToJson(w.created_at)},
          {"updated_at", TimeToJson(w.updated_at)},
          {"last_delivery_at", TimeToJson(w.last_delivery_at)},
          // Spooled's names for the same facts: failure_count is the failures
          // in a row, last_triggered_at the last attempt, last_status whether
          // the last counted attempt failed (null before the first).
          {"organization_id", "default"},
          {"failure_count", w.consecutive_failures},
          {"last_triggered_at", TimeToJson(w.last_delivery_at)},
          {"last_status", !w.last_delivery_at          ? boost::json::value(nullptr)
                          : w.consecutive_failures > 0 ? boost::json::value("failed")
                                                       : boost::json::value("success")}};
}

boost::json::object DeliveryToJson(const WebhookDelivery& d) {
  boost::json::object out{{"id", d.id},
                          {"webhook_id", d.webhook_id},
                          {"event_id", d.event_id},
                          {"event", d.event},
                          {"status", DeliveryStatusName(d.status)},
                          {"attempts", d.attempts}};
  // While pending this is when it is next due; afterwards it means nothing.
  out["next_attempt_at"] = d.status == DeliveryStatus::kPending ? TimeToJson(d.next_attempt_at)
                                                                : boost::json::value(nullptr);
  out["last_status_code"] = value_from(d.last_status_code);
  out["last_error"] = value_from(d.last_error);
  out["created_at"] = TimeToJson(d.created_at);
  out["delivered_at"] = TimeToJson(d.delivered_at);
  out["duration_ms"] = value_from(d.duration_ms);
  // The body we wrote is JSON; shown as such (as a string if it ever is not).
  out["body"] = EmbedJsonText(d.body);
  // The built-in completion webhook's deliveries: the job's URL.
  if (d.url) out["url"] = *d.url;
  return out;
}

}  // namespace redrive::wire
