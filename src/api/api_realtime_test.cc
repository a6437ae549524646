// The live event routes below the socket: GET /api/v1/events answers a
// stream (Response::stream) that a test drives as the server would, and a
// subscriber that never reads is dropped while another and ordinary
// requests go on. Waits are on the stream's wake-up, never a sleep.
#include <condition_variable>
#include <mutex>

#include "api/api_test_util.h"
#include "api/event_stream.h"
#include "api/realtime_stream.h"

namespace redrive::api {
namespace {

using testing::ApiTest;
using testing::Reply;

// A stream as the server holds it: its wake-ups counted in a state the
// callback shares (it may outlive the test's locals).
struct OpenStream {
  struct Wakes {
    std::mutex mu;
    std::condition_variable cv;
    int count = 0;
  };
  Response response;
  std::shared_ptr<Wakes> wakes = std::make_shared<Wakes>();
  std::vector<std::string> messages;
  bool ended = false;

  void Start() {
    response.stream->Start([w = wakes] {
      std::lock_guard lock(w->mu);
      ++w->count;
      w->cv.notify_all();
    });
  }
  // Takes until `n` messages came, the stream ended, or 10 s passed.
  void WaitFor(size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      int seen = 0;
      {
        std::lock_guard lock(wakes->mu);
        seen = wakes->count;
      }
      EventStream::Frames frames = response.stream->Take();
      for (auto& m : frames.messages) messages.push_back(std::move(m));
      ended = ended || frames.ended;
      if (messages.size() >= n || ended) return;
      std::unique_lock lock(wakes->mu);
      if (!wakes->cv.wait_until(lock, deadline, [&] { return wakes->count != seen; })) return;
    }
  }
};

class ApiRealtimeTest : public ApiTest {
 protected:
  // The engine again with these stream limits.
  void RestartEngine(size_t max_streams, size_t buffer) {
    api_.reset();
    engine_.reset();
    engine::EngineOptions options;
    options.max_event_streams = max_streams;
    options.event_buffer = buffer;
    engine_ = std::make_unique<engine::Engine>(*store_, clock_, random_, options);
    ASSERT_TRUE(engine_->Start().ok());
    api_ = std::make_unique<Api>(*engine_, options_);
  }

  OpenStream Open(std::string target, std::string key = "") {
    Request r;
    r.method = "GET";
    r.target = std::move(target);
    if (!key.empty()) r.headers["authorization"] = "Bearer " + key;
    auto promise = std::make_shared<std::promise<Response>>();
    auto future = promise->get_future();
    api_->Handle(std::move(r), [promise](Response resp) { promise->set_value(std::move(resp)); });
    OpenStream s;
    s.response = future.get();
    if (s.response.stream) s.Start();
    return s;
  }
};

TEST_F(ApiRealtimeTest, EventsIsAnSseStreamOfSpooledEvents) {
  OpenStream s = Open("/api/v1/events");
  ASSERT_EQ(s.response.status, 200) << s.response.body;
  ASSERT_TRUE(s.response.stream);
  EXPECT_EQ(s.response.content_type, "text/event-stream");
  EXPECT_EQ(s.response.stream->transport(), EventStream::Transport::kSse);
  const std::string id = Enqueue("emails");
  s.WaitFor(1);
  ASSERT_EQ(s.messages.size(), 1u);
  EXPECT_EQ(s.messages[0].rfind("data: {\"type\":\"JobCreated\",\"data\":{\"job_id\":\"" + id, 0),
            0u)
      << s.messages[0];
  EXPECT_EQ(s.messages[0].substr(s.messages[0].size() - 2), "\n\n");
  EXPECT_EQ(s.response.stream->Ping(), ": ping\n\n");
}

TEST_F(ApiRealtimeTest, SlowStreamIsDroppedWhileOthersAndRequestsGoOn) {
  RestartEngine(8, 16);
  OpenStream slow = Open("/api/v1/events");  // never taken from until the end
  OpenStream fast = Open("/api/v1/events/queues/q");
  ASSERT_TRUE(slow.response.stream && fast.response.stream);
  constexpr int kJobs = 40;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < kJobs; ++i) {
    Enqueue("q");
    ClaimOne("q");
    fast.WaitFor(static_cast<size_t>(2 * (i + 1)));  // reads as it goes
  }
  // Every request was answered (Enqueue and ClaimOne check their answers),
  // none waited on the subscriber that did not read.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(fast.messages.size(), 2u * kJobs);
  EXPECT_FALSE(fast.ended);
  slow.WaitFor(1000);
  EXPECT_TRUE(slow.ended);
  ASSERT_FALSE(slow.messages.empty());
  EXPECT_LE(slow.messages.size(), 17u);  // what it held, and why it ended
  EXPECT_NE(slow.messages.back().find(R"("type":"Error")"), std::string::npos);
  EXPECT_NE(slow.messages.back().find("slower"), std::string::npos) << slow.messages.back();
  // Its place is free once its connection closes.
  slow.response.stream->Close();
  EXPECT_EQ(Open("/api/v1/events").response.status, 200);
}

TEST_F(ApiRealtimeTest, BeyondMaxStreamsIs503) {
  RestartEngine(1, 16);
  OpenStream first = Open("/api/v1/events");
  ASSERT_EQ(first.response.status, 200);
  OpenStream second = Open("/api/v1/events");
  EXPECT_EQ(second.response.status, 503);
  EXPECT_FALSE(second.response.stream);
  EXPECT_NE(second.response.body.find("--max-event-streams"), std::string::npos);
}

TEST_F(ApiRealtimeTest, ViewersGetNoResultAndAKeyMayComeInTheQuery) {
  ApiOptions options;
  options.keys = {{Role::kAdmin, "admin-key-0123456789", ""},
                  {Role::kViewer, "viewer-key-0123456789", ""}};
  Reconfigure(options);
  EXPECT_EQ(Open("/api/v1/events").response.status, 401);
  OpenStream viewer = Open("/api/v1/events?token=viewer-key-0123456789");
  ASSERT_EQ(viewer.response.status, 200) << viewer.response.body;
  OpenStream admin = Open("/api/v1/events?api_key=admin-key-0123456789");
  ASSERT_EQ(admin.response.status, 200) << admin.response.body;
  const std::string key = "admin-key-0123456789";
  const std::string id = std::string(
      Post("/api/v1/jobs", R"({"queue_name":"q","payload":{}})", key)["id"].as_string());
  Reply claimed = Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w1"})", key);
  const std::string lease = Str(claimed["jobs"].as_array()[0].at("lease_id"));
  EXPECT_EQ(Post("/api/v1/jobs/" + id + "/complete",
                 R"({"worker_id":"w1","lease_id":")" + lease + R"(","result":{"secret":1}})", key)
                .status,
            200);
  admin.WaitFor(4);
  viewer.WaitFor(4);
  ASSERT_EQ(admin.messages.size(), 4u);
  ASSERT_EQ(viewer.messages.size(), 4u);
  EXPECT_NE(admin.messages[3].find(R"("result":{"secret":1})"), std::string::npos);
  EXPECT_EQ(viewer.messages[3].find("result"), std::string::npos) << viewer.messages[3];
}

TEST_F(ApiRealtimeTest, WebSocketRouteNeedsAnUpgrade) {
  EXPECT_EQ(Open("/api/v1/ws").response.status, 400);
  Request r;
  r.method = "GET";
  r.target = "/api/v1/ws?queue=emails";
  r.headers["upgrade"] = "websocket";
  auto promise = std::make_shared<std::promise<Response>>();
  auto future = promise->get_future();
  api_->Handle(std::move(r), [promise](Response resp) { promise->set_value(std::move(resp)); });
  Response response = future.get();
  ASSERT_TRUE(response.stream);
  EXPECT_EQ(response.stream->transport(), EventStream::Transport::kWebSocket);
}

TEST(ClientCommandTest, SpooledSdkSubscribeAndUnsubscribe) {
  EventFilter filter;
  EXPECT_EQ(
      ApplyClientCommand(R"({"type":"subscribe","filter":{"queueName":"emails"},"requestId":"r1"})",
                         filter, Instant{}),
      R"({"type":"subscribed","request_id":"r1","filter":{"queue_name":"emails"}})");
  EXPECT_EQ(filter.queue_name, std::optional<std::string>("emails"));
  EXPECT_EQ(
      ApplyClientCommand(R"({"type":"subscribe","filter":{"jobId":"j1"},"requestId":"r2"})", filter,
                         Instant{}),
      R"({"type":"subscribed","request_id":"r2","filter":{"queue_name":"emails","job_id":"j1"}})");
  EXPECT_EQ(ApplyClientCommand(R"({"type":"unsubscribe","filter":{"queueName":"emails"}})", filter,
                               Instant{}),
            R"({"type":"unsubscribed","filter":{"job_id":"j1"}})");
  EXPECT_FALSE(filter.queue_name.has_value());
}

TEST(ClientCommandTest, SpooledBackendCommandsPingAndRefusals) {
  EventFilter filter;
  filter.scope = QueueScope{{"emails"}};
  ApplyClientCommand(R"({"cmd":"Subscribe","queue":"emails","job_id":null})", filter, Instant{});
  EXPECT_EQ(filter.queue_name, std::optional<std::string>("emails"));
  const std::string refused =
      ApplyClientCommand(R"({"cmd":"Subscribe","queue":"reports"})", filter, Instant{});
  EXPECT_NE(refused.find(R"("type":"error")"), std::string::npos) << refused;
  EXPECT_EQ(filter.queue_name, std::optional<std::string>("emails"));
  EXPECT_NE(ApplyClientCommand(R"({"cmd":"Ping"})", filter, Instant{}).find(R"("type":"Ping")"),
            std::string::npos);
  EXPECT_NE(ApplyClientCommand("not json", filter, Instant{}).find(R"("type":"error")"),
            std::string::npos);
}

}  // namespace
}  // namespace redrive::api
