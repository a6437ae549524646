#include "api/realtime_handlers.h"

#include "api/realtime_stream.h"
#include "api/request_decoding.h"
#include "core/limits.h"
#include "engine/engine.h"

namespace redrive::api {

namespace {

bool IsRealtimePath(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  return path == "/api/v1/ws" || path == "/api/v1/events" || path.starts_with("/api/v1/events/");
}

bool HeaderHasToken(const std::string* value, std::string_view token) {
  if (value == nullptr) return false;
  std::string lower = *value;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(token) != std::string::npos;
}

// The filter a request asks for: the path's job or queue, else the query's
// `job_id` / `queue` (Spooled's WebSocket query); always within the
// caller's queue scope.
Result<EventFilter> FilterOf(const Call& call) {
  EventFilter filter;
  filter.scope = QueueScope{call.caller.queues};
  if (auto it = call.params.find("id"); it != call.params.end()) filter.job_id = it->second;
  if (auto it = call.params.find("name"); it != call.params.end()) filter.queue_name = it->second;
  if (!filter.job_id) {
    if (auto it = call.query.find("job_id"); it != call.query.end()) filter.job_id = it->second;
  }
  if (!filter.queue_name) {
    if (auto it = call.query.find("queue"); it != call.query.end()) filter.queue_name = it->second;
  }
  if (filter.queue_name) {
    if (!IsValidQueueName(*filter.queue_name)) {
      return Status::Validation("queue", "not a valid queue name: " + *filter.queue_name);
    }
    REDRIVE_RETURN_IF_ERROR(filter.scope.Check(*filter.queue_name));
  }
  return filter;
}

void Open(Call& call, EventStream::Transport transport) {
  Result<EventFilter> filter = FilterOf(call);
  if (!filter.ok()) return call.Fail(filter.status());
  RealtimeStreamOptions options{.transport = transport,
                                .filter = std::move(*filter),
                                .include_payloads = call.role != Role::kViewer,
                                .ping_interval = call.options.event_ping_interval,
                                .clock = call.options.clock};
  Result<std::shared_ptr<EventStream>> stream =
      OpenRealtimeStream(call.engine.events(), std::move(options));
  if (!stream.ok()) return call.Fail(stream.status());
  Response response;
  response.content_type =
      transport == EventStream::Transport::kSse ? "text/event-stream" : std::string();
  response.headers.emplace_back("Cache-Control", "no-cache");
  response.stream = std::move(*stream);
  call.respond(std::move(response));
}

}  // namespace

void HandleEvents(Call& call) { Open(call, EventStream::Transport::kSse); }
void HandleJobEvents(Call& call) { Open(call, EventStream::Transport::kSse); }
void HandleQueueEvents(Call& call) { Open(call, EventStream::Transport::kSse); }

void HandleWebSocketEvents(Call& call) {
  if (!HeaderHasToken(call.request.header("upgrade"), "websocket")) {
    return call.Fail(Status(ErrorCode::kBadRequest,
                            "GET /api/v1/ws is a WebSocket: send Upgrade: websocket (for "
                            "server-sent events use GET /api/v1/events)"));
  }
  Open(call, EventStream::Transport::kWebSocket);
}

void AdoptQueryCredential(Request& request) {
  if (request.header("authorization") != nullptr || !IsRealtimePath(request.target)) return;
  Result<Target> target = ParseTarget(request.target);
  if (!target.ok()) return;
  for (std::string_view name : {"token", "api_key"}) {
    auto it = target->query.find(name);
    if (it != target->query.end() && !it->second.empty()) {
      request.headers["authorization"] = "Bearer " + it->second;
      return;
    }
  }
}

}  // namespace redrive::api
