#include "sdk/support/sdk_fixture.h"

#include <atomic>

namespace redrive::sdk_test {

e2e::ServerProcess* SdkTest::server_ = nullptr;

void SdkTest::SetUpTestSuite() {
  server_ = new e2e::ServerProcess();
  ASSERT_TRUE(server_->Start());
}

void SdkTest::TearDownTestSuite() {
  if (server_) {
    EXPECT_EQ(server_->Stop(), 0) << server_->Stderr();
  }
  delete server_;
  server_ = nullptr;
}

void SdkTest::SetUp() {
  ASSERT_NE(server_, nullptr);
  ASSERT_TRUE(server_->running());
  client_ = std::make_unique<Client>(Options());
}

ClientOptions SdkTest::Options() const {
  ClientOptions options;
  options.server_url = server_->base_url();
  return options;
}

std::string SdkTest::NewQueue(const std::string& hint) {
  static std::atomic<int> n{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return hint + "-" + std::string(info ? info->name() : "t") + "-" + std::to_string(++n);
}

std::string SdkTest::Enqueue(const std::string& queue, sdk::EnqueueRequest request) {
  request.queue_name = queue;
  if (request.payload.is_null()) request.payload = {{"n", 1}};
  auto r = client_->Enqueue(request);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->id : "";
}

}  // namespace redrive::sdk_test
