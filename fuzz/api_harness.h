// What the fuzz targets that send requests share: an Api on a real Engine
// over a SqliteStore in a temporary folder (on /dev/shm when there is one, so
// commits cost no disk flush), made once per process, and Send(), which hands
// a request to Api::Handle and waits for its one answer, then checks it.
//
// Two Apis share the engine: one without keys (everyone is admin, the
// loopback rules apply) and one with an admin, a worker and a viewer key
// (kAdminKey, ...), so both halves of auth are reached. The clock is manual;
// each Send moves it 1 s, so leases, backoff and auth-failure windows pass.
//
// Any broken contract aborts (libFuzzer then keeps the input): a second
// answer, a 5xx other than 503, a header with CR, LF or NUL, a JSON body that
// does not parse (or is not UTF-8), a body on 204/304.
#pragma once

#include <string_view>

#include "api/api.h"
#include "api/http_types.h"

namespace redrive::fuzz {

inline constexpr std::string_view kAdminKey = "fuzz-admin-key";
inline constexpr std::string_view kWorkerKey = "fuzz-worker-key";
inline constexpr std::string_view kViewerKey = "fuzz-viewer-key";

class ApiHarness {
 public:
  // The process's harness, made on first use. Thread-compatible: the
  // fuzz targets call it from libFuzzer's one thread.
  static ApiHarness& Get();

  // The Api a request goes to: with keys when it carries an Authorization
  // header, else the one without keys.
  api::Api& ApiFor(const api::Request& request);

  // Handle(request) and its answer, checked (CheckResponse). A long-poll
  // claim that parks is ended by moving the clock past its wait.
  api::Response Send(api::Request request);

 private:
  ApiHarness();
  struct State;
  State* state_;  // never freed: the engine's threads run until exit
};

// Aborts with `what` and the response when `response` breaks the HTTP
// layer's contract (see above).
void CheckResponse(const api::Response& response, std::string_view what);

}  // namespace redrive::fuzz
