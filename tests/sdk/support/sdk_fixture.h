// A fixture for SDK tests: one real `redrive serve` per test suite and a
// redrive::Client for it; helpers to wait for conditions with a deadline
// (never a bare sleep).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "e2e/support/server_process.h"
#include "redrive/client.h"

namespace redrive::sdk_test {

class SdkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;

  // A fresh queue name per call, so tests sharing a server never collide.
  std::string NewQueue(const std::string& hint = "q");
  ClientOptions Options() const;
  // Enqueues {"n": n} (plus `request` fields) and returns the id.
  std::string Enqueue(const std::string& queue, sdk::EnqueueRequest request = {});

  static e2e::ServerProcess* server_;
  std::unique_ptr<Client> client_;
};

// Polls `condition` every 20 ms until it holds or `timeout` passes.
bool WaitUntil(const std::function<bool()>& condition,
               std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Backoff that retries at once: tests of retries need no waiting.
inline BackoffPolicy NoBackoff() {
  return {std::chrono::milliseconds(0), std::chrono::milliseconds(0),
          std::chrono::milliseconds(0)};
}

}  // namespace redrive::sdk_test
