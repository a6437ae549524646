#include "e2e/support/shared_server.h"

#include <atomic>

namespace redrive::e2e {

ServerProcess* SharedServerTest::server_ = nullptr;

void SharedServerTest::SetUpTestSuite() {
  server_ = new ServerProcess();
  ASSERT_TRUE(server_->Start());
}

void SharedServerTest::TearDownTestSuite() {
  if (server_) {
    EXPECT_EQ(server_->Stop(), 0) << server_->Stderr();
  }
  delete server_;
  server_ = nullptr;
}

void SharedServerTest::SetUp() {
  ASSERT_NE(server_, nullptr);
  ASSERT_TRUE(server_->running());
}

std::string SharedServerTest::NewQueue(const std::string& hint) {
  static std::atomic<int> n{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return hint + "-" + std::string(info ? info->name() : "t") + "-" + std::to_string(++n);
}

}  // namespace redrive::e2e
