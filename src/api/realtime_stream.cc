#include "api/realtime_stream.h"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <utility>

#include "engine/realtime/event_hub.h"
#include "wire/realtime_json.h"

namespace redrive::api {

namespace {

// Where the hub's wake-ups go: nowhere until the server starts the stream
// (one that came before is passed on then).
struct WakeRelay {
  std::mutex mu;
  std::function<void()> wake;
  bool missed = false;

  void Wake() {
    std::function<void()> w;
    {
      std::lock_guard lock(mu);
      if (!wake) {
        missed = true;
        return;
      }
      w = wake;
    }
    w();
  }
  void Set(std::function<void()> w) {
    bool call = false;
    {
      std::lock_guard lock(mu);
      wake = w;
      call = std::exchange(missed, false);
    }
    if (call) w();
  }
};

class RealtimeStream final : public EventStream {
 public:
  RealtimeStream(RealtimeStreamOptions options, std::shared_ptr<WakeRelay> relay,
                 std::shared_ptr<engine::EventSubscription> sub)
      : options_(std::move(options)), relay_(std::move(relay)), sub_(std::move(sub)) {}
  ~RealtimeStream() override { Close(); }

  Transport transport() const override { return options_.transport; }
  std::chrono::milliseconds ping_interval() const override { return options_.ping_interval; }
  void Start(std::function<void()> wake) override { relay_->Set(std::move(wake)); }

  Frames Take() override {
    Frames frames;
    engine::EventSubscription::Taken taken = sub_->Take();
    frames.messages.reserve(taken.events.size() + 1);
    for (const auto& e : taken.events) {
      frames.messages.push_back(Frame(wire::RealtimeEventJson(*e, options_.include_payloads)));
    }
    if (taken.ended) {
      frames.ended = true;
      frames.messages.push_back(Frame(wire::ErrorEventJson(*taken.ended, Now())));
    }
    return frames;
  }

  std::string Ping() override {
    // SSE: a comment, which EventSource ignores; WebSocket: Spooled's Ping.
    if (options_.transport == Transport::kSse) return ": ping\n\n";
    return wire::PingEventJson(Now());
  }

  std::vector<std::string> OnClientMessage(std::string_view text) override {
    EventFilter filter = sub_->filter();
    std::string reply = ApplyClientCommand(text, filter, Now());
    sub_->SetFilter(std::move(filter));
    return {std::move(reply)};
  }

  void Close() override { sub_->Cancel(); }

 private:
  std::string Frame(std::string json) const {
    if (options_.transport == Transport::kWebSocket) return json;
    return "data: " + json + "\n\n";
  }
  Instant Now() const { return options_.clock->Now(); }

  const RealtimeStreamOptions options_;
  const std::shared_ptr<WakeRelay> relay_;
  const std::shared_ptr<engine::EventSubscription> sub_;
};

// The first of `names` that `o` holds as a string.
std::optional<std::string> Field(const boost::json::object& o,
                                 std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (const boost::json::value* v = o.if_contains(name); v && v->is_string()) {
      const boost::json::string& text = v->get_string();
      return std::string(text.data(), text.size());
    }
  }
  return std::nullopt;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Reply(std::string_view type, const boost::json::value& request_id,
                  const EventFilter* filter, std::string_view error) {
  boost::json::object out;
  out["type"] = type;
  if (!request_id.is_null()) out["request_id"] = request_id;
  if (filter != nullptr) {
    boost::json::object f;
    if (filter->queue_name) f["queue_name"] = *filter->queue_name;
    if (filter->job_id) f["job_id"] = *filter->job_id;
    out["filter"] = std::move(f);
  }
  if (!error.empty()) out["error"] = error;
  return boost::json::serialize(out);
}

}  // namespace

Result<std::shared_ptr<EventStream>> OpenRealtimeStream(engine::EventHub& hub,
                                                        RealtimeStreamOptions options) {
  auto relay = std::make_shared<WakeRelay>();
  auto sub = hub.Subscribe(options.filter, [relay] { relay->Wake(); });
  if (!sub.ok()) return sub.status();
  return std::shared_ptr<EventStream>(
      std::make_shared<RealtimeStream>(std::move(options), relay, std::move(*sub)));
}

std::string ApplyClientCommand(std::string_view text, EventFilter& filter, Instant now) {
  boost::system::error_code ec;
  boost::json::value parsed = boost::json::parse(text, ec);
  if (ec || !parsed.is_object()) {
    return Reply("error", nullptr, nullptr, "a command is a JSON object");
  }
  const boost::json::object& o = parsed.get_object();
  boost::json::value request_id = nullptr;
  for (std::string_view name : {"requestId", "request_id"}) {
    if (const boost::json::value* v = o.if_contains(name)) request_id = *v;
  }
  const std::string command = Lower(Field(o, {"type", "cmd"}).value_or(""));
  if (command == "ping") return wire::PingEventJson(now);
  if (command != "subscribe" && command != "unsubscribe") {
    return Reply("error", request_id, nullptr,
                 "unknown command: expected \"subscribe\", \"unsubscribe\" or \"ping\"");
  }
  const boost::json::object* where = &o;
  if (const boost::json::value* f = o.if_contains("filter"); f && f->is_object()) {
    where = &f->get_object();
  }
  const std::optional<std::string> queue = Field(*where, {"queueName", "queue_name", "queue"});
  const std::optional<std::string> job = Field(*where, {"jobId", "job_id"});
  if (command == "subscribe") {
    if (queue && !filter.scope.Allows(*queue)) {
      return Reply("error", request_id, nullptr, filter.scope.Check(*queue).message());
    }
    if (queue) filter.queue_name = queue;
    if (job) filter.job_id = job;
    return Reply("subscribed", request_id, &filter, "");
  }
  // Clears what it names; naming nothing clears both.
  const bool both = !queue && !job;
  if (both || (queue && filter.queue_name == queue)) filter.queue_name.reset();
  if (both || (job && filter.job_id == job)) filter.job_id.reset();
  return Reply("unsubscribed", request_id, &filter, "");
}

}  // namespace redrive::api
