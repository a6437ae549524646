// Client: the operator audit log (GET /api/v1/audit).
#include "core/time_format.h"
#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "wire/audit_json.h"
#include "wire/json_read.h"

namespace redrive::sdk {

Result<AuditPage> Client::ListAudit(const AuditQuery& query) {
  Query q;
  q.Add("actor", query.actor).Add("action", query.action).Add("target", query.target);
  if (query.since) q.Add("since", std::optional<std::string>(FormatTime(*query.since)));
  if (query.until) q.Add("until", std::optional<std::string>(FormatTime(*query.until)));
  q.Add("limit", query.limit).Add("cursor", query.cursor);
  auto v = impl_->Json("GET", "/audit" + q.str());
  if (!v.ok()) return v.status();
  const auto* o = v->if_object();
  const boost::json::value* entries = o ? o->if_contains("entries") : nullptr;
  if (entries == nullptr || !entries->is_array()) {
    return Status::Internal("malformed /audit answer: no entries");
  }
  AuditPage page;
  for (const boost::json::value& e : entries->get_array()) {
    if (e.is_object()) page.entries.push_back(wire::AuditEntryFromJson(e.get_object()));
  }
  page.next_cursor = wire::ReadString(*o, "next_cursor");
  return page;
}

}  // namespace redrive::sdk
