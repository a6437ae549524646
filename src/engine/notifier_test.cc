// The notifier seam: two engines on one store stand for two nodes, joined by
// an in-process bus that plays the cross-node channel (PostgreSQL LISTEN /
// NOTIFY later). A remote wake-up arrives on the bus's thread and wakes the
// local claim of that queue; a reconnect wakes every parked claim; with
// wake-ups lost, claim_repoll is the net. The manual clock never reaches a
// long-poll deadline here, so only a wake-up or a re-poll can answer a claim.
#include "engine/notifier.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
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

class BusNotifier;

// Carries wake-ups between notifiers on a thread of its own, like a
// database's notification channel. Disconnected, it drops them.
class Bus : public std::enable_shared_from_this<Bus> {
 public:
  Bus() : thread_([this] { Loop(); }) {}
  ~Bus() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Join(BusNotifier* n) {
    std::lock_guard<std::mutex> lock(mu_);
    members_.push_back(n);
  }
  void Leave(BusNotifier* n) {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(members_, n);
  }
  void Send(BusNotifier* from, const WakeUp& wake) { Post(Message{from, wake}); }
  void SetConnected(bool connected) {
    std::lock_guard<std::mutex> lock(mu_);
    connected_ = connected;
  }
  // The channel came back: every member learns it may have missed wake-ups.
  void Reconnect() {
    SetConnected(true);
    Post(Reconnected{});
  }

 private:
  struct Message {
    BusNotifier* from;
    WakeUp wake;
  };
  struct Reconnected {};
  using Item = std::variant<Message, Reconnected>;

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
  std::vector<BusNotifier*> members_;
  bool connected_ = true;
  bool stop_ = false;
  std::thread thread_;
};

// A cross-node notifier on the bus, shaped as one on LISTEN/NOTIFY would be.
class BusNotifier final : public Notifier {
 public:
  explicit BusNotifier(std::shared_ptr<Bus> bus) : bus_(std::move(bus)) {}
  Status Start(Waiters& local) override {
    local_ = &local;
    bus_->Join(this);
    return Status::Ok();
  }
  void Stop() override { bus_->Leave(this); }
  void Publish(const WakeUp& wake) override {
    Deliver(*local_, wake);  // this node's claims at once
    bus_->Send(this, wake);  // the others through the channel
  }
  // On the bus's thread.
  void OnRemote(const WakeUp& wake) { Deliver(*local_, wake); }
  void OnReconnect() { local_->WakeEveryone(); }

 private:
  std::shared_ptr<Bus> bus_;
  Waiters* local_ = nullptr;
};

void Bus::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    // Delivered under the lock, so a member that has left gets nothing.
    for (BusNotifier* m : members_) {
      if (auto* msg = std::get_if<Message>(&item)) {
        if (m != msg->from) m->OnRemote(msg->wake);
      } else {
        m->OnReconnect();
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
};

class NotifierTest : public testing::EngineTest {
 protected:
  void TearDown() override {
    other_.reset();  // before the fixture's engine and store
    EngineTest::TearDown();
  }
  // This fixture's engine_ is node A; node B runs on the same store.
  void StartNodes() {
    EngineOptions a;
    a.notifier = std::make_shared<BusNotifier>(bus_);
    StartEngine(a);
    EngineOptions b;
    b.notifier = std::make_shared<BusNotifier>(bus_);
    b.max_idle = milliseconds(50);
    other_ = std::make_unique<Engine>(*store_, clock_, random_, b);
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

  std::shared_ptr<Bus> bus_ = std::make_shared<Bus>();
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

TEST_F(NotifierTest, AReconnectWakesEveryParkedClaimOfEveryQueue) {
  StartNodes();
  auto a = LongPoll(*other_, "a");
  auto b = LongPoll(*other_, "b");
  ASSERT_TRUE(WaitUntil([&] { return other_->parked_claims() == 2; }));
  bus_->SetConnected(false);
  Enqueue("a");
  Enqueue("b");
  // Lost on the way: B's claims stay parked (the bus thread got nothing).
  EXPECT_EQ(a.wait_for(milliseconds(0)), std::future_status::timeout);
  EXPECT_EQ(other_->parked_claims(), 2u);
  bus_->Reconnect();
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
