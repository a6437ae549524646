// GET /api/v1/audit [ext]: the operator audit log, newest first, paged by an
// opaque cursor. Admins and viewers read it; viewers do not see client
// addresses (reasons they do: "why" is what an on-call reader needs).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <charconv>

#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "core/time_format.h"
#include "wire/audit_json.h"

namespace redrive::api {
namespace {

constexpr int kDefaultAuditLimit = 50, kMaxAuditLimit = 200;
constexpr size_t kMaxFilterBytes = 300;

// A cursor is "<at in microseconds>.<entry id>" of a page's last entry.
std::string EncodeCursor(const AuditEntry& e) {
  return std::to_string(ToMicros(e.at)) + "." + e.id;
}

Result<std::optional<AuditCursor>> QueryCursor(const QueryParams& q) {
  std::optional<std::string> text = QueryString(q, "cursor");
  if (!text) return std::optional<AuditCursor>();
  const size_t dot = text->find('.');
  int64_t micros = 0;
  const char* end = text->data() + (dot == std::string::npos ? text->size() : dot);
  auto [ptr, ec] = std::from_chars(text->data(), end, micros);
  if (dot == std::string::npos || ec != std::errc() || ptr != end || dot + 1 == text->size() ||
      text->size() > kMaxFilterBytes) {
    return Status::Validation("cursor", "cursor must be a next_cursor of an earlier page");
  }
  return std::optional<AuditCursor>(AuditCursor{InstantFromMicros(micros), text->substr(dot + 1)});
}

Result<std::optional<std::string>> QueryFilter(const QueryParams& q, std::string_view key) {
  std::optional<std::string> value = QueryString(q, key);
  if (value && value->size() > kMaxFilterBytes) {
    return Status::Validation(std::string(key), std::string(key) + " must be at most " +
                                                    std::to_string(kMaxFilterBytes) + " bytes");
  }
  return value;
}

Result<std::optional<Instant>> QueryTime(const QueryParams& q, std::string_view key) {
  std::optional<std::string> text = QueryString(q, key);
  if (!text) return std::optional<Instant>();
  std::optional<Instant> t = ParseTime(*text);
  if (!t) {
    return Status::Validation(
        std::string(key), std::string(key) + " must be an RFC 3339 time like 2027-01-15T08:00:00Z");
  }
  return t;
}

Result<AuditFilter> DecodeAuditFilter(const QueryParams& q) {
  AuditFilter f;
  REDRIVE_ASSIGN_OR_RETURN(f.actor, QueryFilter(q, "actor"));
  REDRIVE_ASSIGN_OR_RETURN(f.action, QueryFilter(q, "action"));
  REDRIVE_ASSIGN_OR_RETURN(f.target, QueryFilter(q, "target"));
  REDRIVE_ASSIGN_OR_RETURN(f.since, QueryTime(q, "since"));
  REDRIVE_ASSIGN_OR_RETURN(f.until, QueryTime(q, "until"));
  REDRIVE_ASSIGN_OR_RETURN(f.after, QueryCursor(q));
  REDRIVE_ASSIGN_OR_RETURN(f.limit, QueryLimit(q, "limit", kMaxAuditLimit, kDefaultAuditLimit));
  return f;
}

}  // namespace

void HandleListAudit(Call& call) {
  Result<AuditFilter> f = DecodeAuditFilter(call.query);
  if (!f.ok()) return call.Fail(f.status());
  const size_t limit = static_cast<size_t>(f->limit);
  call.engine.ListAudit(
      std::move(*f),
      Answer<std::vector<AuditEntry>>(call.respond, [limit, admin = call.role == Role::kAdmin](
                                                        std::vector<AuditEntry>& entries) {
        boost::json::array out;
        for (const AuditEntry& e : entries) {
          out.push_back(wire::AuditEntryToJson(e, admin));
        }
        boost::json::object page{{"entries", std::move(out)}, {"next_cursor", nullptr}};
        // A full page may have a next one; the last page may be empty.
        if (entries.size() == limit) {
          page["next_cursor"] = EncodeCursor(entries.back());
        }
        return JsonResponse(200, page);
      }));
}

}  // namespace redrive::api
