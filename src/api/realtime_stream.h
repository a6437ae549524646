// The live event streams behind GET /api/v1/events[/jobs/{id}|/queues/{name}]
// (SSE) and GET /api/v1/ws (WebSocket): an EventStream (event_stream.h) over
// one subscription of the engine's EventHub, encoding its events in Spooled's
// wire format (wire/realtime_json.h) for the caller's role.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/event_stream.h"
#include "core/clock.h"
#include "core/realtime_event.h"
#include "core/status.h"

namespace redrive::engine {
class EventHub;
}

namespace redrive::api {

struct RealtimeStreamOptions {
  EventStream::Transport transport = EventStream::Transport::kSse;
  EventFilter filter;
  bool include_payloads = true;  // false for viewers
  std::chrono::milliseconds ping_interval{15000};
  const Clock* clock = nullptr;  // the timestamps of pings and errors
};

// A stream subscribed to `hub`, or UNAVAILABLE when the hub is at its
// --max-event-streams.
Result<std::shared_ptr<EventStream>> OpenRealtimeStream(engine::EventHub& hub,
                                                        RealtimeStreamOptions options);

// A WebSocket client's subscribe/unsubscribe/ping message applied to
// `filter` (Spooled's SDK: {"type":"subscribe","filter":{"queueName":..,
// "jobId":..},"requestId":..}; its backend: {"cmd":"Subscribe","queue":..,
// "job_id":..}); returns the reply to send. A queue outside `scope` is
// refused in the reply and leaves the filter as it was. `now`: a ping's
// answer.
std::string ApplyClientCommand(std::string_view text, EventFilter& filter, Instant now);

}  // namespace redrive::api
