// A long-poll claim whose client hangs up while it waits (issue 10): the
// server notices the closed socket, answers the claim at once (it stops
// counting as waiting) and the claim takes no job, so the next job goes to a
// worker that is still there.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "e2e/support/long_polls.h"
#include "e2e/support/server_process.h"
#include "e2e/support/wait.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::string Authority(const ServerProcess& server) {
  return "127.0.0.1:" + std::to_string(server.Client().port());
}

// Before issue 10 a parked claim whose client had hung up still took the
// next job (leased to nobody until the lease ran out) and the live worker
// parked beside it waited on.
TEST(LongPollTest, AClaimWhoseClientLeftTakesNoJob) {
  ServerOptions o;
  o.extra_args = {"--log-level", "debug"};  // the server logs when it notices the close
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  {
    std::unique_ptr<RawConnection> gone = c.Connect();
    const std::string body = R"({"queue_name":"lp","worker_id":"gone","wait_ms":30000})";
    ASSERT_TRUE(gone->Send("POST /api/v1/jobs/claim HTTP/1.1\r\nHost: " + Authority(server) +
                           "\r\nContent-Type: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body));
    ASSERT_TRUE(WaitForParkedClaim(c, "lp"));
  }  // the worker dies: its socket closes
  ASSERT_TRUE(WaitUntil([&] {
    return server.Stderr().find("closed the connection while") != std::string::npos;
  })) << server.Stderr();
  // Answered when the close was noticed, not parked until its 30 s run out
  // (or, on PostgreSQL, until its next re-poll, 5 s after it parked).
  EXPECT_TRUE(WaitUntil([&] { return ClaimsWaiting(c, "lp") == 0; }, 3s));

  auto live = std::async(std::launch::async, [&server] {
    HttpClient w = server.Client();
    return w.JsonRequest(
        "POST", "/api/v1/jobs/claim",
        json::object{{"queue_name", "lp"}, {"worker_id", "live"}, {"wait_ms", 20000}});
  });
  // The job must reach the live worker: were the gone claim still to take
  // it, the live one would wait out its 20 s.
  ASSERT_TRUE(WaitUntil([&] { return ClaimsWaiting(c, "lp") == 1; }));
  ASSERT_EQ(c.JsonRequest("POST", "/api/v1/jobs",
                          json::object{{"queue_name", "lp"}, {"payload", json::object{}}})
                .status,
            201);
  ASSERT_EQ(live.wait_for(10s), std::future_status::ready) << "the job went to the gone client";
  JsonResponse claimed = live.get();
  ASSERT_EQ(claimed.status, 200) << claimed.raw.body;
  ASSERT_EQ(claimed.body.at("jobs").as_array().size(), 1u) << claimed.raw.body;
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace redrive::e2e
