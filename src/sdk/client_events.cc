// Client::WatchEvents: GET /api/v1/events (or its job or queue stream) read
// as server-sent events, each `data:` line one event in Spooled's format.
#include <boost/json/parse.hpp>

#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "sdk/sse_frames.h"
#include "wire/error_decode.h"

namespace redrive::sdk {

Status Client::WatchEvents(const WatchEventsFilter& filter,
                           const std::function<bool(const LiveEvent&)>& on_event,
                           std::stop_token stop) {
  REDRIVE_ASSIGN_OR_RETURN(Transport * transport, impl_->transport());
  std::string target = "/api/v1/events";
  if (filter.job_id) {
    target = PathWithId("/api/v1/events/jobs/", *filter.job_id);
  } else if (filter.queue_name) {
    target = PathWithId("/api/v1/events/queues/", *filter.queue_name);
  }
  SseFrames frames;
  std::optional<std::string> ended;  // the server's last words
  bool stopped_by_caller = false;
  auto on_data = [&](std::string_view data) {
    boost::system::error_code ec;
    boost::json::value parsed = boost::json::parse(data, ec);
    if (ec || !parsed.is_object()) return true;  // not an event: skipped
    const boost::json::object& o = parsed.get_object();
    const boost::json::value* type = o.if_contains("type");
    if (type == nullptr || !type->is_string()) return true;
    LiveEvent event{std::string(type->get_string()), nullptr};
    if (const boost::json::value* d = o.if_contains("data")) event.data = *d;
    if (event.type == "Error") {
      const boost::json::value* message =
          event.data.is_object() ? event.data.get_object().if_contains("message") : nullptr;
      ended = message && message->is_string() ? std::string(message->get_string())
                                              : std::string("the stream ended");
      return false;
    }
    if (!on_event(event)) {
      stopped_by_caller = true;
      return false;
    }
    return true;
  };
  auto response = transport->Stream(
      target, [&](std::string_view bytes) { return frames.Feed(bytes, on_data); }, stop);
  if (!response.ok()) return response.status();
  if (response->status / 100 != 2) {
    boost::system::error_code ec;
    boost::json::value parsed = boost::json::parse(response->body, ec);
    if (ec) parsed = nullptr;
    return wire::ErrorFromJson(parsed, response->status);
  }
  if (stopped_by_caller || stop.stop_requested()) return Status::Ok();
  return Status::Unavailable("the event stream ended: " +
                             ended.value_or("the server closed the connection"));
}

}  // namespace redrive::sdk
