#include "engine/realtime/event_hub.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace redrive::engine {
namespace {

RealtimeEvent Created(std::string job, std::string queue = "emails") {
  RealtimeEvent e;
  e.type = RealtimeEventType::kJobCreated;
  e.job_id = std::move(job);
  e.queue_name = std::move(queue);
  return e;
}

// Fanned out by the test; a full buffer drops its subscriber at once.
EventHubOptions Manual(size_t max_streams = 8, size_t buffer = 4) {
  return EventHubOptions{.max_streams = max_streams,
                         .buffer_events = buffer,
                         .drain_grace = std::chrono::milliseconds(0),
                         .own_thread = false};
}

std::vector<std::string> Ids(const EventSubscription::Taken& taken) {
  std::vector<std::string> ids;
  for (const auto& e : taken.events) ids.push_back(e->job_id);
  return ids;
}

TEST(EventHubTest, FansOutPublishedEventsInOrderToMatchingSubscribers) {
  EventHub hub(Manual());
  auto all = hub.Subscribe({}, nullptr);
  auto reports = hub.Subscribe(EventFilter{.queue_name = "reports"}, nullptr);
  auto job_b = hub.Subscribe(EventFilter{.job_id = "b"}, nullptr);
  ASSERT_TRUE(all.ok() && reports.ok() && job_b.ok());
  hub.Publish({Created("a"), Created("b"), Created("c", "reports")});
  EXPECT_EQ(hub.DeliverPending(), 3u);
  EXPECT_EQ(Ids((*all)->Take()), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Ids((*reports)->Take()), (std::vector<std::string>{"c"}));
  EXPECT_EQ(Ids((*job_b)->Take()), (std::vector<std::string>{"b"}));
  EXPECT_TRUE((*all)->Take().events.empty());  // taken once
}

TEST(EventHubTest, WakesOnlyWhenTheBufferWasEmpty) {
  EventHub hub(Manual(8, 100));
  int wakes = 0;
  auto sub = hub.Subscribe({}, [&] { ++wakes; });
  ASSERT_TRUE(sub.ok());
  hub.Publish({Created("a"), Created("b")});
  hub.DeliverPending();
  EXPECT_EQ(wakes, 1);
  hub.Publish({Created("c")});
  hub.DeliverPending();
  EXPECT_EQ(wakes, 1);  // not yet taken: the reader already knows
  EXPECT_EQ((*sub)->Take().events.size(), 3u);
  hub.Publish({Created("d")});
  hub.DeliverPending();
  EXPECT_EQ(wakes, 2);
}

TEST(EventHubTest, SlowSubscriberIsDroppedWhileOthersKeepEveryEvent) {
  EventHub hub(Manual(8, 4));
  int slow_wakes = 0;
  auto slow = hub.Subscribe({}, [&] { ++slow_wakes; });
  auto fast = hub.Subscribe({}, nullptr);
  ASSERT_TRUE(slow.ok() && fast.ok());
  size_t fast_got = 0;
  for (int i = 0; i < 10; ++i) {
    hub.Publish({Created("j" + std::to_string(i))});
    hub.DeliverPending();
    fast_got += (*fast)->Take().events.size();  // the fast one reads as it goes
  }
  EXPECT_EQ(fast_got, 10u);
  EventSubscription::Taken taken = (*slow)->Take();
  EXPECT_EQ(taken.events.size(), 4u);  // what it held when it was dropped
  ASSERT_TRUE(taken.ended.has_value());
  EXPECT_NE(taken.ended->find("slower"), std::string::npos) << *taken.ended;
  EXPECT_EQ(slow_wakes, 2);  // the first event, then the end
  // Dropped means no more events, even once it has room again.
  hub.Publish({Created("late")});
  hub.DeliverPending();
  EXPECT_TRUE((*slow)->Take().events.empty());
}

// A burst ten times the buffer (a batch claim's events) reaches a reader
// that keeps taking, without dropping it: a full buffer waits for room.
TEST(EventHubTest, ABurstLargerThanTheBufferReachesAReaderThatKeepsTaking) {
  EventHub hub(EventHubOptions{.max_streams = 8,
                               .buffer_events = 4,
                               .drain_grace = std::chrono::seconds(30),
                               .own_thread = false});
  auto sub = hub.Subscribe({}, nullptr);
  ASSERT_TRUE(sub.ok());
  std::vector<RealtimeEvent> burst;
  for (int i = 0; i < 40; ++i) burst.push_back(Created("j" + std::to_string(i)));
  hub.Publish(std::move(burst));
  std::vector<std::string> got;
  bool ended = false;
  std::thread reader([&] {
    while (got.size() < 40 && !ended) {
      EventSubscription::Taken taken = (*sub)->Take();
      for (const std::string& id : Ids(taken)) got.push_back(id);
      ended = taken.ended.has_value();
      std::this_thread::yield();
    }
  });
  EXPECT_EQ(hub.DeliverPending(), 40u);  // returns once all 40 were offered
  reader.join();
  EXPECT_FALSE(ended);
  ASSERT_EQ(got.size(), 40u);
  EXPECT_EQ(got.front(), "j0");
  EXPECT_EQ(got.back(), "j39");
}

// A reader that takes nothing is dropped once the round's grace is spent.
TEST(EventHubTest, AFullBufferNobodyTakesIsDroppedAfterTheGrace) {
  EventHub hub(EventHubOptions{.max_streams = 8,
                               .buffer_events = 2,
                               .drain_grace = std::chrono::milliseconds(50),
                               .own_thread = false});
  auto stuck = hub.Subscribe({}, nullptr);
  ASSERT_TRUE(stuck.ok());
  hub.Publish({Created("a"), Created("b"), Created("c"), Created("d")});
  const auto started = std::chrono::steady_clock::now();
  hub.DeliverPending();
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(50));
  EventSubscription::Taken taken = (*stuck)->Take();
  EXPECT_EQ(Ids(taken), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(taken.ended.has_value());
  EXPECT_NE(taken.ended->find("slower"), std::string::npos);
}

TEST(EventHubTest, RefusesStreamsBeyondTheCapAndCancelFreesAPlace) {
  EventHub hub(Manual(2, 4));
  auto a = hub.Subscribe({}, nullptr);
  auto b = hub.Subscribe({}, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  auto c = hub.Subscribe({}, nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(c.status().message().find("--max-event-streams"), std::string::npos);
  (*a)->Cancel();
  EXPECT_EQ(hub.subscribers(), 1u);
  EXPECT_TRUE(hub.Subscribe({}, nullptr).ok());  // a temporary: released again at once
  b->reset();
  EXPECT_FALSE(hub.HasSubscribers());
}

TEST(EventHubTest, SetFilterAppliesToLaterEvents) {
  EventHub hub(Manual(8, 16));
  auto sub = hub.Subscribe(EventFilter{.queue_name = "emails"}, nullptr);
  ASSERT_TRUE(sub.ok());
  hub.Publish({Created("a", "reports")});
  hub.DeliverPending();
  (*sub)->SetFilter(EventFilter{.queue_name = "reports"});
  hub.Publish({Created("b", "reports")});
  hub.DeliverPending();
  EXPECT_EQ(Ids((*sub)->Take()), (std::vector<std::string>{"b"}));
}

TEST(EventHubTest, PublishingPastThePendingBoundDropsEveryoneInsteadOfGrowing) {
  EventHub hub(EventHubOptions{.max_streams = 4,
                               .buffer_events = 100,
                               .max_pending_events = 3,
                               .drain_grace = std::chrono::milliseconds(0),
                               .own_thread = false});
  auto sub = hub.Subscribe({}, nullptr);
  ASSERT_TRUE(sub.ok());
  hub.Publish({Created("a"), Created("b")});
  hub.Publish({Created("c"), Created("d")});  // 4 > 3: not queued
  hub.DeliverPending();
  EventSubscription::Taken taken = (*sub)->Take();
  EXPECT_TRUE(taken.events.empty());
  ASSERT_TRUE(taken.ended.has_value());
}

TEST(EventHubTest, StopEndsEverySubscriptionAndRefusesNewOnes) {
  EventHub hub(Manual());
  std::atomic<int> wakes{0};
  auto sub = hub.Subscribe({}, [&] { ++wakes; });
  ASSERT_TRUE(sub.ok());
  hub.Stop();
  EXPECT_EQ(wakes.load(), 1);
  EXPECT_EQ((*sub)->Take().ended, std::optional<std::string>("the server is shutting down"));
  EXPECT_FALSE(hub.Subscribe({}, nullptr).ok());
}

}  // namespace
}  // namespace redrive::engine
