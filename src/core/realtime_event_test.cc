#include "core/realtime_event.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

RealtimeEvent JobEvent(std::string job, std::string queue) {
  RealtimeEvent e;
  e.type = RealtimeEventType::kJobStatusChange;
  e.job_id = std::move(job);
  e.queue_name = std::move(queue);
  return e;
}

TEST(EventFilterTest, NoFilterMatchesEverything) {
  EventFilter all;
  EXPECT_TRUE(all.Matches(JobEvent("a", "emails")));
  RealtimeEvent worker;
  worker.type = RealtimeEventType::kWorkerRegistered;
  worker.worker_id = "w1";
  worker.queue_name = "emails";
  EXPECT_TRUE(all.Matches(worker));
}

TEST(EventFilterTest, JobFilterMatchesOnlyThatJob) {
  EventFilter f{.job_id = "a"};
  EXPECT_TRUE(f.Matches(JobEvent("a", "emails")));
  EXPECT_FALSE(f.Matches(JobEvent("b", "emails")));
  RealtimeEvent worker;
  worker.type = RealtimeEventType::kWorkerRegistered;
  worker.queue_name = "emails";
  EXPECT_FALSE(f.Matches(worker));
}

TEST(EventFilterTest, QueueFilterMatchesOnlyThatQueue) {
  EventFilter f{.queue_name = "emails"};
  EXPECT_TRUE(f.Matches(JobEvent("a", "emails")));
  EXPECT_FALSE(f.Matches(JobEvent("a", "reports")));
}

TEST(EventFilterTest, ScopeHidesOtherQueuesWhateverTheFilter) {
  EventFilter f{.scope = QueueScope{{"emails"}}};
  EXPECT_TRUE(f.Matches(JobEvent("a", "emails")));
  EXPECT_FALSE(f.Matches(JobEvent("a", "reports")));
  EventFilter job{.job_id = "a", .scope = QueueScope{{"emails"}}};
  EXPECT_FALSE(job.Matches(JobEvent("a", "reports")));
}

TEST(RealtimeEventTypeTest, SpooledNames) {
  EXPECT_EQ(RealtimeEventTypeName(RealtimeEventType::kJobCreated), "JobCreated");
  EXPECT_EQ(RealtimeEventTypeName(RealtimeEventType::kJobStatusChange), "JobStatusChange");
  EXPECT_EQ(RealtimeEventTypeName(RealtimeEventType::kJobCompleted), "JobCompleted");
  EXPECT_EQ(RealtimeEventTypeName(RealtimeEventType::kJobFailed), "JobFailed");
  EXPECT_EQ(RealtimeEventTypeName(RealtimeEventType::kWorkerRegistered), "WorkerRegistered");
  EXPECT_EQ(RealtimeEventTypeName(RealtimeEventType::kWorkerDeregistered), "WorkerDeregistered");
}

}  // namespace
}  // namespace redrive
