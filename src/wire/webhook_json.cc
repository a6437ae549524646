#include "wire/webhook_json.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value OptString(const std::optional<std::string>& s) {
  if (!s) return nullptr;
  return boost::json::value(*s);
}

}  // namespace

boost::json::object WebhookToJson(const Webhook& w) {
  boost::json::array events;
  for (const std::string& e : w.events) events.emplace_back(e);
  return {{"id", w.id},
          {"name", w.name},
          {"url", w.url},
          {"events", std::move(events)},
          {"enabled", w.enabled},
          {"format", WebhookFormatName(w.format)},
          {"has_secret", !w.secret.empty()},
          {"consecutive_failures", w.consecutive_failures},
          {"disabled_reason", OptString(w.disabled_reason)},
          {"created_at", TimeToJson(w.created_at)},
          {"updated_at", TimeToJson(w.updated_at)},
          {"last_delivery_at", TimeToJson(w.last_delivery_at)}};
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
  out["last_status_code"] =
      d.last_status_code ? boost::json::value(*d.last_status_code) : boost::json::value(nullptr);
  out["last_error"] = OptString(d.last_error);
  out["created_at"] = TimeToJson(d.created_at);
  out["delivered_at"] = TimeToJson(d.delivered_at);
  out["duration_ms"] =
      d.duration_ms ? boost::json::value(*d.duration_ms) : boost::json::value(nullptr);
  // The body we wrote is JSON; shown as such (as a string if it ever is not).
  boost::system::error_code ec;
  boost::json::value body = boost::json::parse(d.body, ec);
  out["body"] = ec ? boost::json::value(d.body) : std::move(body);
  return out;
}

}  // namespace redrive::wire
