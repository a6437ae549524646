// Operator routes: every route of the table with an audit action (router.h,
// Route::audit_action) runs through RunOperatorRoute, which adds two things
// around its handler, whatever the route:
//
// Idempotency-Key. A request may carry "Idempotency-Key: K" (1..255 visible
// ASCII characters). The key is reserved in the store before the handler
// runs, scoped to the caller's API key (operator_identity.h). Once answered,
// the answer (status, Content-Type, extra headers, body) is kept with the
// key for the engine's idempotency_ttl (24 h). A later request with the same
// key and the same fingerprint (method, route, path and query parameters,
// canonical JSON body) gets that answer again, verbatim, with
// "Idempotent-Replayed: true", and nothing runs; with another fingerprint it
// gets 409 CONFLICT naming the header. While the first request has no
// answer, another with its key gets 409 too (it does not wait): the first is
// still running, or its server stopped between its change and the record of
// its answer, so its outcome is unknown. A 400, 413 or 415 answer (a
// malformed request, refused before anything ran) and a 5xx (the change did
// not commit) free the key instead: the client may send the request again
// with it. An answer larger than kMaxReplayBodyBytes is kept as a 409 that
// says so instead of verbatim. A created API key's answer is kept without
// its secret ("key": null): the store holds secrets only as hashes.
//
// Audit. Every answer of the handler (2xx and 4xx alike; not the refusals
// before it — authentication, a bad Idempotency-Key or reason header — nor
// replays, which change nothing) leaves one audit entry: who, the route and
// action, targets (from the path, or from the answer: a created webhook's
// id, the jobs a DLQ redrive revived), a DLQ selection's canonical body, the
// count the answer reports, the status, the request id, and the caller's
// reason ("X-Redrive-Reason", percent-decoded UTF-8, at most
// kMaxAuditReasonBytes). The entry and the key's answer are written in one
// transaction after the handler's own commit and before the answer is sent:
// an answered request always has both; a server that stops between the
// two commits leaves the change done, no entry, and the key reserved.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/call.h"
#include "api/router.h"

namespace redrive::api {

// The largest answer kept verbatim for replay (a redrive of 1000 jobs answers
// about 45 KB).
inline constexpr size_t kMaxReplayBodyBytes = 256 * 1024;
inline constexpr size_t kMaxIdempotencyKeyBytes = 255;

// Runs `route` (which has an audit action) for `call` as described above.
void RunOperatorRoute(Call call, const Route& route);

// The Idempotency-Key header, checked (VALIDATION naming the header); unset
// when absent.
Result<std::optional<std::string>> IdempotencyKeyHeader(const Request& request);
// The X-Redrive-Reason header, percent-decoded and checked (VALIDATION
// naming the header); unset when absent or empty.
Result<std::optional<std::string>> ReasonHeader(const Request& request);
// `body` as JSON with object keys sorted and no spaces; `body` itself when
// it is not JSON. An empty body is "{}" (the API's rule).
std::string CanonicalJson(std::string_view body);

}  // namespace redrive::api
