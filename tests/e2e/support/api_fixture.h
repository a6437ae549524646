// A fixture for end-to-end tests of the REST API: one real `redrive serve`
// per test suite, a client, and helpers for the calls tests make often.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "e2e/support/http_client.h"
#include "e2e/support/shared_server.h"

namespace redrive::e2e {

namespace json = boost::json;

class ApiTest : public SharedServerTest {
 protected:
  void SetUp() override;

  JsonResponse Post(const std::string& path, const json::value& body);
  JsonResponse Put(const std::string& path, const json::value& body);
  JsonResponse Get(const std::string& path);
  JsonResponse Delete(const std::string& path);

  // Enqueues and returns the job id (asserting 201).
  std::string Enqueue(const std::string& queue, json::object extra = {});
  // Claims up to `limit` jobs (asserting 200) and returns them.
  json::array Claim(const std::string& queue, const std::string& worker, int limit = 1,
                    int wait_ms = 0, int lease_secs = 30);
  // A dead job: enqueued into `queue` with max_retries 0 (plus `extra`),
  // claimed and failed with `error`: max_retries_exceeded, or non_retryable
  // when `no_retry`. Returns its id.
  std::string MakeDeadJob(const std::string& queue, const std::string& error = "boom",
                          bool no_retry = false, json::object extra = {});
  json::object Job(const std::string& id);
  std::vector<std::string> HistoryTypes(const std::string& id);

  std::unique_ptr<HttpClient> client_;
};

// Milliseconds between two RFC 3339 timestamps (b − a).
long long MillisBetween(const json::value& a, const json::value& b);

}  // namespace redrive::e2e
