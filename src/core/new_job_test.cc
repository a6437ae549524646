#include "core/new_job.h"

#include <gtest/gtest.h>

#include "core/ids.h"
#include "core/ids_test_util.h"
#include "core/time_format.h"

namespace redrive {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Instant kNow = *ParseTime("2026-11-29T12:00:00.000Z");

QueueConfig Queue() {
  QueueConfig q;
  q.queue_name = "emails";
  q.max_retries = 7;
  q.default_timeout = 45;
  q.backoff = {milliseconds(200), milliseconds(9000), milliseconds(0)};
  return q;
}

NewJobParams Params() {
  NewJobParams p;
  p.queue_name = "emails";
  p.payload_json = R"({"to":"a@example.com"})";
  return p;
}

TEST(MakeNewJobTest, UnsetFieldsTakeTheQueueDefaults) {
  UuidV7Sequence ids;
  FixedRandom random(7);
  const NewJob n = MakeNewJob(Params(), Queue(), kNow, random, ids);
  const Job& j = n.job;
  EXPECT_EQ(j.queue_name, "emails");
  EXPECT_EQ(j.payload, R"({"to":"a@example.com"})");
  EXPECT_EQ(j.priority, 0);
  EXPECT_EQ(j.max_retries, 7);
  EXPECT_EQ(j.timeout_seconds, 45);
  EXPECT_EQ(j.backoff, Queue().backoff);
  EXPECT_TRUE(j.tags.empty());
  EXPECT_EQ(j.idempotency_key, std::nullopt);
  EXPECT_EQ(j.expires_at, std::nullopt);
}

TEST(MakeNewJobTest, GivenFieldsWin) {
  NewJobParams p = Params();
  p.priority = 5;
  p.max_retries = 0;
  p.timeout_seconds = 10;
  p.backoff = BackoffPolicy{milliseconds(1), milliseconds(2), milliseconds(3)};
  p.tags = {{"team", "growth"}};
  p.idempotency_key = "order-1";
  p.expires_at = kNow + seconds(60);
  UuidV7Sequence ids;
  FixedRandom random(7);
  const Job j = MakeNewJob(p, Queue(), kNow, random, ids).job;
  EXPECT_EQ(j.priority, 5);
  EXPECT_EQ(j.max_retries, 0);
  EXPECT_EQ(j.timeout_seconds, 10);
  EXPECT_EQ(j.backoff, (BackoffPolicy{milliseconds(1), milliseconds(2), milliseconds(3)}));
  EXPECT_EQ(j.tags, (Tags{{"team", "growth"}}));
  EXPECT_EQ(j.idempotency_key, "order-1");
  EXPECT_EQ(j.expires_at, kNow + seconds(60));
}

TEST(MakeNewJobTest, ANewJobIsPendingAtNowWithACreatedEntry) {
  UuidV7Sequence ids;
  FixedRandom random(7);
  const NewJob n = MakeNewJob(Params(), Queue(), kNow, random, ids);
  FixedRandom same(7);
  EXPECT_EQ(n.job.id, NewUuidV7(kNow, same));
  EXPECT_EQ(n.job.status, JobStatus::kPending);
  EXPECT_EQ(n.job.created_at, kNow);
  EXPECT_EQ(n.job.updated_at, kNow);
  EXPECT_EQ(n.job.scheduled_at, kNow);
  EXPECT_EQ(n.job.retry_count, 0);
  EXPECT_EQ(n.job.attempts, 0);
  EXPECT_TRUE(IsUuid(n.created.id)) << n.created.id;
  EXPECT_EQ(n.created.job_id, n.job.id);
  EXPECT_EQ(n.created.event_type, "created");
  EXPECT_EQ(n.created.worker_id, std::nullopt);
  EXPECT_EQ(n.created.details_json, R"({"queue_name":"emails"})");
  EXPECT_EQ(n.created.created_at, kNow);
}

TEST(MakeNewJobTest, AFutureScheduledAtMakesItScheduled) {
  NewJobParams p = Params();
  p.scheduled_at = kNow + milliseconds(1500);
  UuidV7Sequence ids;
  FixedRandom random(7);
  const NewJob n = MakeNewJob(p, Queue(), kNow, random, ids);
  EXPECT_EQ(n.job.status, JobStatus::kScheduled);
  EXPECT_EQ(n.job.scheduled_at, kNow + milliseconds(1500));
  EXPECT_EQ(n.job.created_at, kNow);
  EXPECT_EQ(n.created.details_json,
            R"({"queue_name":"emails","scheduled_at":"2026-11-29T12:00:01.500Z"})");
}

TEST(MakeNewJobTest, ScheduledAtNowOrInThePastIsPendingAtThatTime) {
  for (Instant at : {kNow, kNow - seconds(30)}) {
    NewJobParams p = Params();
    p.scheduled_at = at;
    UuidV7Sequence ids;
    FixedRandom random(7);
    const NewJob n = MakeNewJob(p, Queue(), kNow, random, ids);
    EXPECT_EQ(n.job.status, JobStatus::kPending);
    EXPECT_EQ(n.job.scheduled_at, at);
    EXPECT_EQ(n.created.details_json, R"({"queue_name":"emails"})");
  }
}

TEST(MakeNewJobTest, JobsMadeFromOneSequenceAscendInTheOrderTheyAreMade) {
  // One `now` for all, as in a bulk: listings and bulk operations walk
  // (created_at, id), and so visit them in the order they were inserted.
  SystemRandom random(3);
  UuidV7Sequence ids;
  std::string prev;
  for (int i = 0; i < 1000; ++i) {
    const NewJob n = MakeNewJob(Params(), Queue(), kNow, random, ids);
    ASSERT_LT(prev, n.job.id) << i;
    EXPECT_NE(n.created.id, n.job.id);
    prev = n.job.id;
  }
}

}  // namespace
}  // namespace redrive
