// The notifier seam: two engines on one store stand for two nodes, joined by
// an in-process hub that plays the store's wake channel (PostgreSQL LISTEN /
// NOTIFY: store.h, WakeChannel), through the engine's ChannelNotifier. A
// remote wake-up arrives on the hub's thread and wakes the local claim of
// that queue; a reset of the channel wakes every parked claim; with wake-ups
// lost, claim_repoll is the net. The manual clock never reaches a
// long-poll deadline here, so only a wake-up or a re-poll can answer a claim.
#include "engine/notifier.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "engine/engine_test_util.h"

namespace redrive::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class FakeWakeChannel;

// Carries queue names between wake channels on a thread of its own, like a
// database's notification channel. Disconnected, it drops them.
class Hub {
 public:
  Hub() : thread_([this] { Loop(); }) {}
  ~Hub() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Join(FakeWakeChannel* c) {
    std::lock_guard<std::mutex> lock(mu_);
    members_.push_back(c);
  }
  void Leave(FakeWakeChannel* c) {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(members_, c);
  }
  void Send(FakeWakeChannel* from, std::vector<std::string> queues) {
    Post(Message{from, std::move(queues)});
  }
  void SetConnected(bool connected) {
    std::lock_guard<std::mutex> lock(mu_);
    connected_ = connected;
  }
  // The connection came back: every channel resets (it may have missed some).
  void Reconnect() {
    SetConnected(true);
    Post(Reset{});
  }

 private:
  struct Message {
    FakeWakeChannel* from;
    std::vector<std::string> queues;
  };
  struct Reset {};
  using Item = std::variant<Message, Reset>;

  void Post(Item item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!connected_ && std::holds_alternative<Message>(item)) return;
      queue_.push_back(std::move(item));
    }
    cv_.notify_all();
  }
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::vector<FakeWakeChannel*> members_;
  bool connected_ = true;
  bool stop_ = false;
  std::thread thread_;
};

// A store's wake channel (store.h) on the hub: what PgWakeChannel is over
// LISTEN/NOTIFY. Its callbacks run on the hub's thread.
class FakeWakeChannel final : public store::WakeChannel {
 public:
  explicit FakeWakeChannel(std::shared_ptr<Hub> hub) : hub_(std::move(hub)) {}
  ~FakeWakeChannel() override { Stop(); }
  Status Start(std::function<void(const std::string&)> on_wake,
               std::function<void()> on_reset) override {
    on_wake_ = std::move(on_wake);
    on_reset_ = std::move(on_reset);
    hub_->Join(this);
    return Status::Ok();
  }
  void Publish(const std::vector<std::string>& queues) override { hub_->Send(this, queues); }
  void Stop() override { hub_->Leave(this); }

  std::function<void(const std::string&)> on_wake_;
  std::function<void()> on_reset_;

 private:
  std::shared_ptr<Hub> hub_;
};

void Hub::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    // Delivered under the lock, so a channel that has stopped gets nothing.
    for (FakeWakeChannel* c : members_) {
      if (auto* msg = std::get_if<Message>(&item)) {
        if (c == msg->from) continue;  // its node woke its own waiters
        for (const std::string& q : msg->queues) c->on_wake_(q);
      } else {
        c->on_reset_();
      }
    }
  }
}

// Publishes nowhere: every wake-up is lost.
class LossyNotifier final : public Notifier {
 public:
  Status Start(Waiters&) override { return Status::Ok(); }
  void Stop() override {}
  void Publish(const WakeUp&) override {}
  long long HandOver(const std::map<std::string, long long>&) override { return 0; }
};

// Two nodes: the fixture's engine (node A) and other_ (node B), each on its
// own FaultStore over the one SQLite store — transaction-per-request
// writers and a wake channel on the hub each, as two nodes on PostgreSQL.
class NotifierTest : public testing::EngineTest {
 protected:
  void TearDown() override {
    other_.reset();  // before the fixture's engine and store
    other_store_.reset();
    EngineTest::TearDown();
  }
  void StartNodes() {
    pooled_ = true;
    auto channels = [hub = hub_] { return std::make_unique<FakeWakeChannel>(hub); };
    fault_store_->SetWakeChannels(channels);
    StartEngine();
    other_store_ = std::make_unique<testing::FaultStore>(*store_);
    other_store_->SetWakeChannels(channels);
    EngineOptions b;
    b.max_idle = milliseconds(50);
    other_ = std::make_unique<Engine>(*other_store_, clock_, random_, b);
    ASSERT_TRUE(other_->Start().ok());
  }
  std::future<Result<ClaimResult>> LongPoll(Engine& node, const std::string& queue) {
    ClaimParams p;
    p.queue_name = queue;
    p.worker_id = "w";
    p.wait = seconds(600);
    auto got = std::make_shared<std::promise<Result<ClaimResult>>>();
    auto f = got->get_future();
    node.Claim(std::move(p), [got](Result<ClaimResult> r) { got->set_value(std::move(r)); });
    return f;
  }
  static size_t Jobs(std::future<Result<ClaimResult>>& f) {
    if (f.wait_for(seconds(10)) != std::future_status::ready) return 0;
    auto r = f.get();
    return r.ok() ? r->jobs.size() : 0;
  }

  std::shared_ptr<Hub> hub_ = std::make_shared<Hub>();
  std::unique_ptr<testing::FaultStore> other_store_;
  std::unique_ptr<Engine> other_;
};

TEST_F(NotifierTest, AnEnqueueOnOneNodeWakesAClaimParkedOnTheOther) {
  StartNodes();
  auto claim = LongPoll(*other_, "q");
  ASSERT_TRUE(WaitUntil([&] { return other_->parked_claims() == 1; }));
  Enqueue("q");  // on node A
  EXPECT_EQ(Jobs(claim), 1u);
  EXPECT_EQ(other_->parked_claims(), 0u);
}

TEST_F(NotifierTest, AChannelResetWakesEveryParkedClaimOfEveryQueue) {
  StartNodes();
  auto a = LongPoll(*other_, "a");
  auto b = LongPoll(*other_, "b");
  ASSERT_TRUE(WaitUntil([&] { return other_->parked_claims() == 2; }));
  hub_->SetConnected(false);
  Enqueue("a");
  Enqueue("b");
  // Lost on the way: B's claims stay parked (the hub got nothing).
  EXPECT_EQ(a.wait_for(milliseconds(0)), std::future_status::timeout);
  EXPECT_EQ(other_->parked_claims(), 2u);
  hub_->Reconnect();
  EXPECT_EQ(Jobs(a), 1u);
  EXPECT_EQ(Jobs(b), 1u);
}

TEST_F(NotifierTest, WithWakeUpsLostAParkedClaimRepollsAfterClaimRepoll) {
  EngineOptions options;
  options.notifier = std::make_shared<LossyNotifier>();
  options.claim_repoll = seconds(5);
  StartEngine(options);
  auto claim = LongPoll(*engine_, "q");
  ASSERT_TRUE(WaitParked(1));
  Enqueue("q");  // its wake-up is lost
  EXPECT_EQ(engine_->parked_claims(), 1u);
  clock_.Advance(milliseconds(4'999));
  engine_->RunServicesOnce();
  EXPECT_EQ(claim.wait_for(milliseconds(0)), std::future_status::timeout);
  EXPECT_EQ(engine_->parked_claims(), 1u);
  clock_.Advance(milliseconds(1));
  engine_->RunServicesOnce();
  EXPECT_EQ(Jobs(claim), 1u);
}

TEST_F(NotifierTest, WithoutClaimRepollALostWakeUpLeavesTheClaimParkedUntilItsDeadline) {
  EngineOptions options;
  options.notifier = std::make_shared<LossyNotifier>();
  StartEngine(options);
  auto claim = LongPoll(*engine_, "q");
  ASSERT_TRUE(WaitParked(1));
  Enqueue("q");
  clock_.Advance(seconds(599));
  engine_->RunServicesOnce();
  EXPECT_EQ(claim.wait_for(milliseconds(0)), std::future_status::timeout);
  clock_.Advance(seconds(1));
  engine_->RunServicesOnce();
  EXPECT_EQ(Jobs(claim), 0u);  // answered empty at its deadline
}

}  // namespace
}  // namespace redrive::engine
