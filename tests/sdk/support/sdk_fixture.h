// A fixture for SDK tests: one real `redrive serve` per test suite and a
// redrive::Client for it; WaitUntil to wait for conditions with a deadline
// (never a bare sleep).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "e2e/support/shared_server.h"
#include "e2e/support/wait.h"
#include "redrive/client.h"

namespace redrive::sdk_test {

class SdkTest : public e2e::SharedServerTest {
 protected:
  void SetUp() override;

  ClientOptions Options() const;
  // Enqueues {"n": n} (plus `request` fields) and returns the id.
  std::string Enqueue(const std::string& queue, sdk::EnqueueRequest request = {});

  std::unique_ptr<Client> client_;
};

using e2e::WaitUntil;

// Backoff that retries at once: tests of retries need no waiting.
inline BackoffPolicy NoBackoff() {
  return {std::chrono::milliseconds(0), std::chrono::milliseconds(0), std::chrono::milliseconds(0)};
}

}  // namespace redrive::sdk_test
