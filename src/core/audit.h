// The operator audit log and the Idempotency-Key records of operator routes:
// plain data, written by the engine in the store (audit_log, audit_targets,
// operator_requests) and mapped to JSON by wire/audit_json.h.
//
// Every operator mutation (an admin route of the route table that carries an
// audit action: api/routes.cc) leaves one AuditEntry: who (the caller's key
// label), when, what (method, route template, action, targets, selector,
// count), how it ended (HTTP status, request id) and why (the caller's
// optional reason).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"

namespace redrive {

// Bounds on what a client can make an entry hold.
inline constexpr size_t kMaxAuditReasonBytes = 500;
inline constexpr size_t kMaxAuditSelectorBytes = 4096;
inline constexpr size_t kMaxAuditTargets = 1000;  // a DLQ redrive's largest batch

struct AuditEntry {
  std::string id;  // UUIDv7 made from `at`
  Instant at;
  // Who: a named key's name ("oncall"), an unnamed key's label
  // ("admin#1a2b3c4d"), or "local" when the server has no keys.
  std::string actor;
  std::string role;            // "admin"
  std::string client_address;  // the peer's IP address ("" when unknown)
  std::string method;          // "POST"
  std::string route;           // the route template: "/api/v1/jobs/{id}/retry"
  std::string action;          // "job.retry", "dlq.retry", "queue.pause", ...
  // What it touched: "job:ID", "queue:NAME", "webhook:ID" (a DLQ redrive: one
  // per redriven job), at most kMaxAuditTargets.
  std::vector<std::string> targets;
  // A selection's canonical JSON (DLQ retry and purge bodies), cut to
  // kMaxAuditSelectorBytes.
  std::optional<std::string> selector;
  // How many jobs the answer says were affected (retried_count, purged_count).
  std::optional<int64_t> count;
  int status = 0;  // the HTTP status answered
  std::string request_id;
  std::optional<std::string> reason;  // at most kMaxAuditReasonBytes

  bool operator==(const AuditEntry&) const = default;
};

// Where a page of the audit log starts: after the entry (at, id), newest first.
struct AuditCursor {
  Instant at;
  std::string id;
};

// Filters of GET /audit; unset fields do not filter. Newest first.
struct AuditFilter {
  std::optional<std::string> actor;
  std::optional<std::string> action;
  std::optional<std::string> target;  // entries that touched it
  std::optional<Instant> since;       // at >= since
  std::optional<Instant> until;       // at < until
  std::optional<AuditCursor> after;   // the previous page's last entry
  int limit = 50;
};

// An Idempotency-Key of an operator route: reserved when the request starts,
// completed with the answer once it is known. The answer is replayed to a
// request with the same scope, key and fingerprint until expires_at.
struct IdempotencyRecord {
  std::string scope;        // whose key space: "key:<hash of the API key>" or "local"
  std::string key;          // the Idempotency-Key header
  std::string fingerprint;  // hash of method, route, parameters and canonical body
  Instant created_at;
  Instant expires_at;
  // Unset while the request is in flight (or its server stopped before it
  // recorded the answer).
  std::optional<int> response_status;
  std::string response_content_type;
  std::vector<std::pair<std::string, std::string>> response_headers;
  std::string response_body;

  bool completed() const { return response_status.has_value(); }
  bool operator==(const IdempotencyRecord&) const = default;
};

// A response's extra headers as stored: "name\tvalue" lines. Header names
// and values hold neither tabs nor line breaks (the HTTP layer's headers).
std::string EncodeHeaderLines(const std::vector<std::pair<std::string, std::string>>& headers);
std::vector<std::pair<std::string, std::string>> DecodeHeaderLines(std::string_view text);

}  // namespace redrive
