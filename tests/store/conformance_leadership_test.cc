// Conformance: duty leadership (store.h's Leadership). Only what the
// interface promises to every store: one holder per duty, holds kept while
// renewed about once a second, released at once by ReleaseAll or by
// destroying the object. How a dead holder's duty lapses is each store's own
// (SQLite: a lease ttl, tested in src/store/sqlite/).
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

// Hold's answer; a store error fails the test (and answers false).
bool Holds(Leadership& l, const std::string& duty, Instant now) {
  auto held = l.Hold(duty, now);
  EXPECT_TRUE(held.ok()) << held.status().ToString();
  return held.ok() && *held;
}

TEST_P(StoreConformanceTest, LeadershipIsExclusivePerDuty) {
  auto a = NewLeadership("node-a");
  auto b = NewLeadership("node-b");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(Holds(*a, "lease-reaper", T(0)));
  EXPECT_FALSE(Holds(*b, "lease-reaper", T(0)));
  // Duties are independent: b may lead another one.
  EXPECT_TRUE(Holds(*b, "scheduler", T(0)));
  EXPECT_FALSE(Holds(*a, "scheduler", T(0)));
  // Asking again keeps what each holds.
  EXPECT_TRUE(Holds(*a, "lease-reaper", T(0)));
  EXPECT_TRUE(Holds(*b, "scheduler", T(0)));
}

TEST_P(StoreConformanceTest, LeadershipIsKeptWhileRenewed) {
  auto a = NewLeadership("node-a");
  auto b = NewLeadership("node-b");
  ASSERT_TRUE(a && b);
  // A holder asking once a second keeps the duty, however long it runs.
  for (int s = 0; s <= 60; ++s) {
    ASSERT_TRUE(Holds(*a, "retention", T(s))) << "second " << s;
    ASSERT_FALSE(Holds(*b, "retention", T(s))) << "second " << s;
  }
}

TEST_P(StoreConformanceTest, ReleaseAllHandsEveryDutyOverAtOnce) {
  auto a = NewLeadership("node-a");
  auto b = NewLeadership("node-b");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Holds(*a, "scheduler", T(0)));
  ASSERT_TRUE(Holds(*a, "lease-reaper", T(0)));
  ASSERT_FALSE(Holds(*b, "scheduler", T(0)));
  a->ReleaseAll();
  EXPECT_TRUE(Holds(*b, "scheduler", T(0)));
  EXPECT_TRUE(Holds(*b, "lease-reaper", T(0)));
  EXPECT_FALSE(Holds(*a, "scheduler", T(0)));
  // After ReleaseAll a node may lead again what is free.
  EXPECT_TRUE(Holds(*a, "retention", T(0)));
}

TEST_P(StoreConformanceTest, DestroyingTheLeadershipReleasesItsDuties) {
  auto b = NewLeadership("node-b");
  ASSERT_TRUE(b);
  {
    auto a = NewLeadership("node-a");
    ASSERT_TRUE(a);
    ASSERT_TRUE(Holds(*a, "webhook-dispatch", T(0)));
    ASSERT_FALSE(Holds(*b, "webhook-dispatch", T(0)));
  }
  EXPECT_TRUE(Holds(*b, "webhook-dispatch", T(0)));
}

}  // namespace
}  // namespace redrive::store::testing
