// Live events on the wire, in Spooled's shape: one JSON object per event,
// {"type": "JobCompleted", "data": {"job_id": ..., "queue_name": ...,
// "timestamp": ...}} (the backend's serde tag "type", content "data"; the
// data's fields snake_case). SSE sends each as one `data:` line, the
// WebSocket as one text message.
#pragma once

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/realtime_event.h"

namespace redrive::wire {

// `event` as JSON text. Without `include_payloads` (a viewer) a completion's
// result is left out.
std::string RealtimeEventJson(const RealtimeEvent& event, bool include_payloads);
// {"type":"Ping","data":{"timestamp":...}}: the keep-alive a WebSocket gets.
std::string PingEventJson(Instant now);
// {"type":"Error","data":{"message":...,"timestamp":...}}: why a stream ends.
std::string ErrorEventJson(std::string_view message, Instant now);

}  // namespace redrive::wire
