// A base for test suites that share one real `redrive serve` (started before
// the suite's first test, stopped after its last): the REST API tests
// (ApiTest) and the SDK tests (SdkTest).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "e2e/support/server_process.h"

namespace redrive::e2e {

class SharedServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;  // asserts the suite's server is running

  // A fresh queue name per call, so tests sharing a server never collide.
  std::string NewQueue(const std::string& hint = "q");

  static ServerProcess* server_;
};

}  // namespace redrive::e2e
