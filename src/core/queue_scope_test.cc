#include "core/queue_scope.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(QueueScopeTest, EmptyAllowsEveryQueue) {
  QueueScope any;
  EXPECT_TRUE(any.Allows("payments"));
  EXPECT_TRUE(any.Check("").ok());
}

TEST(QueueScopeTest, ListedQueuesOnlyAndTheRefusalNamesThem) {
  QueueScope scope{{"emails", "sms"}};
  EXPECT_TRUE(scope.Allows("emails"));
  EXPECT_TRUE(scope.Allows("sms"));
  EXPECT_FALSE(scope.Allows("email"));
  EXPECT_FALSE(scope.Allows("payments"));
  Status st = scope.Check("payments");
  EXPECT_EQ(st.code(), ErrorCode::kAccessDenied);
  EXPECT_EQ(st.message(), "this API key may only use the queues emails, sms, not \"payments\"");
}

}  // namespace
}  // namespace redrive
