#include "api/operator_route.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <memory>
#include <utility>

#include "api/auth.h"
#include "api/operator_identity.h"
#include "api/responses.h"
#include "core/audit.h"
#include "core/time_format.h"
#include "core/utf8.h"
#include "crypto/secret_text.h"
#include "engine/engine.h"

namespace redrive::api {
namespace {

constexpr char kKeyHeader[] = "Idempotency-Key";
constexpr char kReasonHeader[] = "X-Redrive-Reason";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void WriteCanonical(const boost::json::value& v, std::string& out) {
  if (v.is_object()) {
    std::vector<std::pair<std::string_view, const boost::json::value*>> members;
    for (const auto& m : v.get_object()) members.emplace_back(m.key(), &m.value());
    std::sort(members.begin(), members.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    out += '{';
    for (size_t i = 0; i < members.size(); ++i) {
      if (i > 0) out += ',';
      out += boost::json::serialize(boost::json::string(members[i].first));
      out += ':';
      WriteCanonical(*members[i].second, out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    const boost::json::array& a = v.get_array();
    for (size_t i = 0; i < a.size(); ++i) {
      if (i > 0) out += ',';
      WriteCanonical(a[i], out);
    }
    out += ']';
  } else {
    out += boost::json::serialize(v);
  }
}

// What the request is, for telling a replay from another request under the
// same key: method, route, parameters and canonical body, hashed.
std::string Fingerprint(const Call& call, const Route& route) {
  std::string text = std::string(route.method) + '\n' + std::string(route.pattern) + '\n';
  for (const auto& [k, v] : call.params) text += k + '=' + v + '\n';  // sorted maps
  text += '\n';
  for (const auto& [k, v] : call.query) text += k + '=' + v + '\n';
  text += '\n' + CanonicalJson(call.request.body);
  return crypto::Sha256Hex(text);
}

// "job" of "job.retry": what the route's parameters name.
std::string_view Noun(std::string_view action) { return action.substr(0, action.find('.')); }

// The entry as far as the request tells it; the answer adds the rest (Finish).
AuditEntry EntryFor(const Call& call, const Route& route, std::string actor,
                    std::optional<std::string> reason) {
  AuditEntry e;
  e.actor = std::move(actor);
  e.role = RoleName(call.role);
  e.client_address = call.request.client_address;
  e.method = std::string(route.method);
  e.route = std::string(route.pattern);
  e.action = std::string(route.audit_action);
  e.request_id = call.request.request_id;
  e.reason = std::move(reason);
  const std::string_view noun = Noun(route.audit_action);
  if (auto id = call.params.find("id"); id != call.params.end()) {
    e.targets.push_back(std::string(noun) + ":" + id->second);
  } else if (auto name = call.params.find("name"); name != call.params.end()) {
    e.targets.push_back(std::string(noun) + ":" + name->second);
  }
  if (!e.reason && route.audit_action == "operation.create") {
    // An operation's reason may come in its body (the operation keeps it too).
    boost::system::error_code ec;
    boost::json::value body = boost::json::parse(call.request.body, ec);
    const boost::json::value* text =
        !ec && body.is_object() ? body.get_object().if_contains("reason") : nullptr;
    if (text != nullptr && text->is_string() && !text->get_string().empty()) {
      e.reason = Utf8Prefix(ValidUtf8(std::string(text->get_string())), kMaxAuditReasonBytes);
    }
  }
  if (noun == "dlq" || noun == "quarantine" || route.audit_action == "operation.create") {
    e.selector = Utf8Prefix(CanonicalJson(call.request.body), kMaxAuditSelectorBytes);
  }
  return e;
}

// What the answer adds to the entry: its status, the count it reports, and
// the targets only it knows (a created webhook or schedule, a triggered
// schedule's job, the jobs a redrive revived).
void AddAnswer(AuditEntry& e, const Response& r) {
  e.status = r.status;
  if (r.status >= 300 || r.body.empty()) return;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(r.body, ec);
  if (ec || !v.is_object()) return;
  const boost::json::object& o = v.get_object();
  // A created operation: the jobs it matched, and the operation itself.
  if (e.action == "operation.create") {
    if (const boost::json::value* n = o.if_contains("matched"); n && n->is_int64()) {
      e.count = n->get_int64();
    }
  }
  for (const char* field : {"retried_count", "purged_count", "released_count"}) {
    // Counts the server wrote: non-negative int64s, as Boost.JSON reads them back.
    if (const boost::json::value* n = o.if_contains(field); n && n->is_int64()) {
      e.count = n->get_int64();
    }
  }
  for (const char* field : {"retried_jobs", "released_ids"}) {
    const boost::json::value* ids = o.if_contains(field);
    if (ids == nullptr || !ids->is_array()) continue;
    for (const boost::json::value& id : ids->get_array()) {
      if (id.is_string() && e.targets.size() < kMaxAuditTargets) {
        e.targets.push_back("job:" + std::string(id.get_string()));
      }
    }
  }
  if (e.action == "webhook.create" || e.action == "schedule.create" ||
      e.action == "api_key.create" || e.action == "operation.create") {
    if (const boost::json::value* id = o.if_contains("id"); id && id->is_string()) {
      e.targets.push_back(std::string(Noun(e.action)) + ":" + std::string(id->get_string()));
    }
  }
  if (e.action == "schedule.trigger") {
    if (const boost::json::value* id = o.if_contains("job_id"); id && id->is_string()) {
      e.targets.push_back("job:" + std::string(id->get_string()));
    }
  }
}

// A created API key's answer without its secret (null): the store keeps
// answers for replay, and a key's secret is stored only as a hash.
Response WithoutSecret(Response r) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(r.body, ec);
  if (ec || !v.is_object() || !v.get_object().contains("key")) return r;
  v.get_object()["key"] = nullptr;
  v.get_object()["key_note"] = "the secret is shown only in the first answer";
  r.body = boost::json::serialize(v);
  return r;
}

// The key's record with `r` as its answer to replay.
IdempotencyRecord Answered(IdempotencyRecord key, const Response& r) {
  if (r.body.size() > kMaxReplayBodyBytes) {
    Response kept = ErrorResponse(
        Status(ErrorCode::kConflict,
               "the first answer to this Idempotency-Key (status " + std::to_string(r.status) +
                   ") was too large to keep; see GET /api/v1/audit for what it did",
               kKeyHeader));
    return Answered(std::move(key), kept);
  }
  key.response_status = r.status;
  key.response_content_type = r.content_type;
  key.response_headers = r.headers;
  key.response_body = r.body;
  return key;
}

// Answers that do not keep the key: a malformed request, which the handler
// refused before anything ran (the client fixes it and sends it again with
// the same key), and a 5xx, whose change did not commit.
bool FreesKey(int status) {
  return status == 400 || status == 413 || status == 415 || status >= 500;
}

// What an operator request needs once its handler has answered.
struct Pending {
  engine::Engine& engine;
  AuditEntry entry;
  std::optional<IdempotencyRecord> key;
  Responder respond;  // the client's
};

// Records the entry and the key's answer in one transaction, then answers.
void Finish(const std::shared_ptr<Pending>& p, Response r) {
  engine::OperatorOutcome outcome;
  outcome.entry = p->entry;
  AddAnswer(*outcome.entry, r);
  if (p->key) {
    outcome.release_key = FreesKey(r.status);
    outcome.key = outcome.release_key                   ? *p->key
                  : p->entry.action == "api_key.create" ? Answered(*p->key, WithoutSecret(r))
                                                        : Answered(*p->key, r);
  }
  p->engine.FinishOperatorRequest(std::move(outcome), [p, r = std::move(r)](Status st) {
    // The change is done and durable: answer it even when its record failed.
    if (!st.ok()) {
      spdlog::error("audit: recording {} {} (status {}) failed: {}", p->entry.method,
                    p->entry.route, r.status, st.ToString());
    }
    p->respond(r);
  });
}

void RunHandler(Call& call, const Route& route, std::shared_ptr<Pending> p) {
  call.respond = [p](Response r) { Finish(p, std::move(r)); };
  route.handler(call);
}

// The answer to a request whose key another request holds.
Response AnswerHeld(const IdempotencyRecord& mine, const IdempotencyRecord& held) {
  if (held.fingerprint != mine.fingerprint) {
    return ErrorResponse(
        Status(ErrorCode::kConflict,
               "Idempotency-Key \"" + mine.key + "\" was used at " + FormatTime(held.created_at) +
                   " for a different request (method, route, parameters or body); use a new key",
               kKeyHeader));
  }
  if (!held.completed()) {
    return ErrorResponse(Status(
        ErrorCode::kConflict,
        "the request with Idempotency-Key \"" + mine.key + "\" that began at " +
            FormatTime(held.created_at) +
            " has no answer yet: it is still running, or its server stopped before recording "
            "the answer (outcome unknown: see GET /api/v1/audit)",
        kKeyHeader));
  }
  Response r;
  r.status = *held.response_status;
  r.content_type = held.response_content_type;
  r.headers = held.response_headers;
  r.headers.emplace_back("Idempotent-Replayed", "true");
  r.body = held.response_body;
  return r;
}

}  // namespace

Result<std::optional<std::string>> IdempotencyKeyHeader(const Request& request) {
  const std::string* value = request.header("idempotency-key");
  if (value == nullptr) return std::optional<std::string>();
  const bool visible =
      std::all_of(value->begin(), value->end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
  if (value->empty() || value->size() > kMaxIdempotencyKeyBytes || !visible) {
    return Status::Validation(kKeyHeader,
                              "Idempotency-Key must be 1 to 255 visible ASCII characters "
                              "(no spaces), e.g. a UUID");
  }
  return std::optional<std::string>(*value);
}

Result<std::optional<std::string>> ReasonHeader(const Request& request) {
  const std::string* value = request.header("x-redrive-reason");
  if (value == nullptr || value->empty()) return std::optional<std::string>();
  auto bad = [](const std::string& why) {
    return Status::Validation(
        kReasonHeader,
        "X-Redrive-Reason " + why + " (percent-encode non-ASCII text as UTF-8: %C3%A9 for é)");
  };
  std::string text;
  for (size_t i = 0; i < value->size(); ++i) {
    const char c = (*value)[i];
    if (c != '%') {
      text += c;
      continue;
    }
    const int hi = i + 2 < value->size() ? HexValue((*value)[i + 1]) : -1;
    const int lo = hi >= 0 ? HexValue((*value)[i + 2]) : -1;
    if (lo < 0) return bad("has a % not followed by two hex digits (write %25 for %)");
    text += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (text.size() > kMaxAuditReasonBytes) {
    return bad("must be at most " + std::to_string(kMaxAuditReasonBytes) + " bytes");
  }
  if (ValidUtf8(text) != text) return bad("must be UTF-8");
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) return bad("must not hold control characters");
  }
  return std::optional<std::string>(std::move(text));
}

std::string CanonicalJson(std::string_view body) {
  if (body.empty()) return "{}";
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec) return std::string(body);
  std::string out;
  WriteCanonical(v, out);
  return out;
}

void RunOperatorRoute(Call call, const Route& route) {
  Result<std::optional<std::string>> key = IdempotencyKeyHeader(call.request);
  if (!key.ok()) return call.Fail(key.status());
  Result<std::optional<std::string>> reason = ReasonHeader(call.request);
  if (!reason.ok()) return call.Fail(reason.status());
  // Who: the caller as authentication found it (auth.h: Caller).
  auto p = std::make_shared<Pending>(Pending{
      call.engine, EntryFor(call, route, call.caller.actor, std::move(*reason)), {}, call.respond});
  if (!*key) return RunHandler(call, route, std::move(p));

  IdempotencyRecord record;
  record.scope = call.caller.scope;
  record.key = std::move(**key);
  record.fingerprint = Fingerprint(call, route);
  p->key = record;
  // The handler runs once the key is ours, on the engine thread that says so
  // (handlers never block: they decode and hand over to the engine).
  auto held_call = std::make_shared<Call>(std::move(call));
  held_call->engine.ReserveIdempotencyKey(
      std::move(record), [held_call, route, p](Result<engine::IdempotencyClaim> claim) {
        if (!claim.ok()) return held_call->Fail(claim.status());
        if (claim->reserved) return RunHandler(*held_call, route, p);
        held_call->respond(AnswerHeld(*p->key, *claim->existing));
      });
}

}  // namespace redrive::api
