#include "sdk/support/sdk_fixture.h"

namespace redrive::sdk_test {

void SdkTest::SetUp() {
  SharedServerTest::SetUp();
  if (HasFatalFailure()) return;
  client_ = std::make_unique<Client>(Options());
}

ClientOptions SdkTest::Options() const {
  ClientOptions options;
  options.server_url = server_->base_url();
  return options;
}

std::string SdkTest::Enqueue(const std::string& queue, sdk::EnqueueRequest request) {
  request.queue_name = queue;
  if (request.payload.is_null()) request.payload = {{"n", 1}};
  auto r = client_->Enqueue(request);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->id : "";
}

}  // namespace redrive::sdk_test
