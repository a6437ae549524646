// The engine's live events end to end below the API: made from the writes
// of real requests, published after their commit, fanned out by the hub's
// own thread. Waits are on the subscription's wake-up, never a sleep.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "engine/engine_test_util.h"
#include "engine/realtime/event_hub.h"

namespace redrive::engine {
namespace {

using testing::EngineTest;

// A subscription whose events are gathered as they come. Its wake-ups
// count in a state the callback shares, which may outlive the collector.
class Collector {
 public:
  Collector(EventHub& hub, EventFilter filter = {}) {
    auto sub = hub.Subscribe(std::move(filter), [wakes = wakes_] {
      std::lock_guard lock(wakes->mu);
      ++wakes->count;
      wakes->cv.notify_all();
    });
    EXPECT_TRUE(sub.ok()) << sub.status().ToString();
    if (sub.ok()) sub_ = *sub;
  }

  // Waits until `n` events came (or 10 s passed) and returns them all.
  std::vector<RealtimeEvent> WaitFor(size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      int seen = 0;
      {
        std::lock_guard lock(wakes_->mu);
        seen = wakes_->count;
      }
      for (const auto& e : sub_->Take().events) got_.push_back(*e);
      if (got_.size() >= n) return got_;
      std::unique_lock lock(wakes_->mu);
      if (!wakes_->cv.wait_until(lock, deadline, [&] { return wakes_->count != seen; })) {
        return got_;
      }
    }
  }

 private:
  struct Wakes {
    std::mutex mu;
    std::condition_variable cv;
    int count = 0;
  };
  std::shared_ptr<Wakes> wakes_ = std::make_shared<Wakes>();
  std::vector<RealtimeEvent> got_;
  std::shared_ptr<EventSubscription> sub_;
};

std::vector<std::string> Types(const std::vector<RealtimeEvent>& events) {
  std::vector<std::string> types;
  for (const auto& e : events) types.emplace_back(RealtimeEventTypeName(e.type));
  return types;
}

TEST_F(EngineTest, RealtimeEventsFollowAJobThroughItsLife) {
  Collector all(engine_->events());
  const std::string id = Enqueue("emails");
  auto jobs = Claim("emails");
  ASSERT_EQ(jobs.size(), 1u);
  clock_.Advance(std::chrono::milliseconds(250));
  ASSERT_TRUE(
      CallStatus(&Engine::Complete, CompleteParams{id, "w1", jobs[0].lease_id, R"({"ok":true})"})
          .ok());
  std::vector<RealtimeEvent> events = all.WaitFor(4);
  ASSERT_EQ(Types(events), (std::vector<std::string>{"JobCreated", "JobStatusChange",
                                                     "JobStatusChange", "JobCompleted"}));
  EXPECT_EQ(events[0].job_id, id);
  EXPECT_EQ(events[0].queue_name, "emails");
  EXPECT_EQ(events[1].old_status, JobStatus::kPending);
  EXPECT_EQ(events[1].new_status, JobStatus::kProcessing);
  EXPECT_EQ(events[2].new_status, JobStatus::kCompleted);
  EXPECT_EQ(events[3].duration_ms, 250);
  EXPECT_EQ(events[3].result, std::optional<std::string>(R"({"ok":true})"));
}

TEST_F(EngineTest, RealtimeFailedAttemptsSayWhetherTheyRetry) {
  Collector failures(engine_->events(), EventFilter{.queue_name = "emails"});
  EnqueueDead("emails", "boom");
  std::vector<RealtimeEvent> events = failures.WaitFor(4);
  ASSERT_EQ(Types(events), (std::vector<std::string>{"JobCreated", "JobStatusChange",
                                                     "JobStatusChange", "JobFailed"}));
  EXPECT_EQ(events[2].new_status, JobStatus::kDeadletter);
  EXPECT_EQ(events[3].error, "boom");
  EXPECT_FALSE(events[3].will_retry);
}

TEST_F(EngineTest, RealtimeFiltersByJobAndQueue) {
  Collector reports(engine_->events(), EventFilter{.queue_name = "reports"});
  Enqueue("emails");
  const std::string id = Enqueue("reports");
  Collector job(engine_->events(), EventFilter{.job_id = id});
  Claim("reports");
  std::vector<RealtimeEvent> got = reports.WaitFor(2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].job_id, id);
  // Subscribed after the enqueue was answered: its JobCreated may still come
  // (events are published after the answers), the claim surely does.
  std::vector<RealtimeEvent> of_job = job.WaitFor(1);
  ASSERT_FALSE(of_job.empty());
  if (of_job[0].type == RealtimeEventType::kJobCreated) of_job = job.WaitFor(2);
  for (const auto& e : of_job) EXPECT_EQ(e.job_id, id);
  EXPECT_EQ(of_job.back().type, RealtimeEventType::kJobStatusChange);
  EXPECT_EQ(of_job.back().new_status, JobStatus::kProcessing);
}

TEST_F(EngineTest, RealtimeSlowSubscriberIsDroppedWhileWritesAndOthersGoOn) {
  EngineOptions options;
  options.event_buffer = 25;
  StartEngine(options);
  // Never reads: dropped once 25 events wait for it.
  auto slow = engine_->events().Subscribe({}, nullptr);
  ASSERT_TRUE(slow.ok());
  Collector fast(engine_->events(), EventFilter{.queue_name = "emails"});
  for (int i = 0; i < 20; ++i) {
    Enqueue("emails");
    ASSERT_EQ(fast.WaitFor(static_cast<size_t>(i + 1)).size(), static_cast<size_t>(i + 1));
  }
  EXPECT_EQ(Claim("emails", 20).size(), 20u);  // writes never waited for anyone
  EXPECT_EQ(fast.WaitFor(40).size(), 40u);     // 20 created, 20 claimed
  EventSubscription::Taken taken = (*slow)->Take();
  ASSERT_TRUE(taken.ended.has_value());
  EXPECT_EQ(taken.events.size(), 25u);  // what it held when dropped
}

TEST_F(EngineTest, RealtimeStopEndsStreams) {
  Collector all(engine_->events());
  auto sub = engine_->events().Subscribe({}, nullptr);
  ASSERT_TRUE(sub.ok());
  engine_->Stop();
  EXPECT_TRUE((*sub)->Take().ended.has_value());
}

}  // namespace
}  // namespace redrive::engine
