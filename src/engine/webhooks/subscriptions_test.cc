#include "engine/webhooks/subscriptions.h"

#include <gtest/gtest.h>

namespace redrive::engine {
namespace {

Webhook Hook(std::string id, std::vector<std::string> events, bool enabled = true) {
  Webhook w;
  w.id = std::move(id);
  w.events = std::move(events);
  w.enabled = enabled;
  return w;
}

TEST(SubscriptionCacheTest, StartsEmptyAndKeepsOnlyEnabledWebhooks) {
  SubscriptionCache cache;
  ASSERT_NE(cache.Get(), nullptr);
  EXPECT_TRUE(cache.Get()->empty());
  cache.Set({Hook("a", {"job.failed"}), Hook("b", {"job.created"}, false)});
  auto s = cache.Get();
  ASSERT_EQ(s->webhooks.size(), 1u);
  EXPECT_EQ(s->webhooks[0].id, "a");
  EXPECT_TRUE(s->Wants("job.failed"));
  EXPECT_FALSE(s->Wants("job.created"));  // only the disabled one wants it
}

TEST(SubscriptionCacheTest, ASnapshotInUseIsNeverChangedBySet) {
  SubscriptionCache cache;
  cache.Set({Hook("a", {"job.failed"})});
  auto before = cache.Get();
  cache.Set({});
  EXPECT_TRUE(before->Wants("job.failed"));  // a batch keeps what it started with
  EXPECT_TRUE(cache.Get()->empty());
}

}  // namespace
}  // namespace redrive::engine
