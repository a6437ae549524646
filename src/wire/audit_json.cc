#include "wire/audit_json.h"

#include <boost/json/array.hpp>

#include "wire/json_read.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& s) {
  if (!s) return nullptr;
  return boost::json::string(*s);
}

}  // namespace

boost::json::object AuditEntryToJson(const AuditEntry& e, bool with_client_address) {
  boost::json::array targets;
  for (const std::string& t : e.targets) targets.push_back(boost::json::string(t));
  boost::json::object out{{"id", e.id},
                          {"at", TimeToJson(e.at)},
                          {"actor", e.actor},
                          {"role", e.role},
                          {"method", e.method},
                          {"route", e.route},
                          {"action", e.action},
                          {"targets", std::move(targets)},
                          {"selector", OptionalString(e.selector)},
                          {"count", e.count ? boost::json::value(*e.count) : nullptr},
                          {"status", e.status},
                          {"request_id", e.request_id},
                          {"reason", OptionalString(e.reason)}};
  if (with_client_address) out["client_address"] = e.client_address;
  return out;
}

AuditEntry AuditEntryFromJson(const boost::json::object& o) {
  AuditEntry e;
  e.id = ReadStringOr(o, "id");
  e.at = ReadTime(o, "at").value_or(Instant{});
  e.actor = ReadStringOr(o, "actor");
  e.role = ReadStringOr(o, "role");
  e.client_address = ReadStringOr(o, "client_address");
  e.method = ReadStringOr(o, "method");
  e.route = ReadStringOr(o, "route");
  e.action = ReadStringOr(o, "action");
  if (const boost::json::value* targets = o.if_contains("targets");
      targets && targets->is_array()) {
    for (const boost::json::value& t : targets->get_array()) {
      if (t.is_string()) e.targets.emplace_back(t.get_string());
    }
  }
  e.selector = ReadString(o, "selector");
  e.count = ReadInt(o, "count");
  e.status = static_cast<int>(ReadIntOr(o, "status", 0));
  e.request_id = ReadStringOr(o, "request_id");
  e.reason = ReadString(o, "reason");
  return e;
}

}  // namespace redrive::wire
