#include "core/queue.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

using namespace std::chrono_literals;

const Instant kNow = InstantFromMicros(1'800'000'000'000'000);

WorkerInfo Worker(Instant last_heartbeat, std::string status = "healthy") {
  WorkerInfo w;
  w.id = "w1";
  w.queue_name = "emails";
  w.hostname = "host-1";
  w.status = std::move(status);
  w.registered_at = last_heartbeat - 1h;
  w.last_heartbeat_at = last_heartbeat;
  return w;
}

TEST(EffectiveWorkerStatusTest, ReportedStatusWhileHeartbeating) {
  EXPECT_EQ(EffectiveWorkerStatus(Worker(kNow), kNow), "healthy");
  EXPECT_EQ(EffectiveWorkerStatus(Worker(kNow - 10s, "draining"), kNow), "draining");
  EXPECT_EQ(EffectiveWorkerStatus(Worker(kNow - 30s + 1us), kNow), "healthy");
}

TEST(EffectiveWorkerStatusTest, OfflineAfterThreeSilentHeartbeatIntervals) {
  EXPECT_EQ(EffectiveWorkerStatus(Worker(kNow - 30s), kNow), "offline");  // exactly 3 × 10 s
  EXPECT_EQ(EffectiveWorkerStatus(Worker(kNow - 1h, "draining"), kNow), "offline");
}

TEST(EffectiveWorkerStatusTest, DeregisteredWinsOverEverything) {
  WorkerInfo w = Worker(kNow);
  w.deregistered_at = kNow;
  EXPECT_EQ(EffectiveWorkerStatus(w, kNow), "offline");
  w.last_heartbeat_at = kNow - 1h;
  EXPECT_EQ(EffectiveWorkerStatus(w, kNow), "offline");
}

TEST(StatusCountsTest, OfAddressesEachStatusAndTotalSumsThem) {
  StatusCounts c;
  long long n = 1;
  for (JobStatus s : kAllStatuses) c.of(s) = n++;
  EXPECT_EQ(c.pending, 1);
  EXPECT_EQ(c.scheduled, 2);
  EXPECT_EQ(c.processing, 3);
  EXPECT_EQ(c.completed, 4);
  EXPECT_EQ(c.deadletter, 5);
  EXPECT_EQ(c.cancelled, 6);
  EXPECT_EQ(c.quarantined, 7);
  EXPECT_EQ(c.blocked, 8);
  EXPECT_EQ(c.total(), 36);
}

TEST(QueueConfigTest, DefaultsFollowTheContract) {
  const QueueConfig q;
  EXPECT_EQ(q.max_retries, 3);
  EXPECT_EQ(q.default_timeout, 300);
  EXPECT_TRUE(q.enabled);
  EXPECT_FALSE(q.paused);
  EXPECT_EQ(q.backoff,
            (BackoffPolicy{std::chrono::milliseconds(1000), std::chrono::milliseconds(60000),
                           std::chrono::milliseconds(500)}));
  EXPECT_EQ(q.retention.deadletter, std::nullopt);  // the DLQ is kept until purged
  EXPECT_EQ(q.crash_limit, 3);
  EXPECT_EQ(q.max_snoozes, 25);
}

}  // namespace
}  // namespace redrive
