// Durability: kill -9 the server while clients enqueue and complete jobs; after
// a restart every acknowledged job is there, every acknowledged completion
// stuck, and every job is in a valid state.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <mutex>
#include <set>
#include <thread>

#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

TEST(CrashTest, KillNineLosesNothingAcknowledged) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  const std::string q = "crash";

  std::mutex mu;
  std::set<std::string> acked_enqueues, acked_completions;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  // Producers: single and bulk enqueues, recording every 2xx.
  for (int p = 0; p < 3; ++p) {
    threads.emplace_back([&, p] {
      HttpClient c = server.Client();
      c.set_timeout(milliseconds(5000));
      for (int i = 0; !stop; ++i) {
        if (p == 0) {
          json::array jobs;
          for (int k = 0; k < 20; ++k)
            jobs.push_back(json::object{{"payload", {{"p", p}, {"i", i}, {"k", k}}}});
          auto r = c.JsonRequest("POST", "/api/v1/jobs/bulk",
                                 json::object{{"queue_name", q}, {"jobs", jobs}});
          if (r.status != 200) continue;
          std::lock_guard<std::mutex> l(mu);
          for (const auto& s : r.body.at("succeeded").as_array()) {
            acked_enqueues.insert(std::string(s.at("job_id").as_string()));
          }
        } else {
          auto r =
              c.JsonRequest("POST", "/api/v1/jobs",
                            json::object{{"queue_name", q}, {"payload", {{"p", p}, {"i", i}}}});
          if (r.status != 201) continue;
          std::lock_guard<std::mutex> l(mu);
          acked_enqueues.insert(std::string(r.body.at("id").as_string()));
        }
      }
    });
  }
  // Consumers: claim and complete, recording acknowledged completions.
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      HttpClient c = server.Client();
      c.set_timeout(milliseconds(5000));
      const std::string worker = "crash-w" + std::to_string(w);
      while (!stop) {
        auto r = c.JsonRequest(
            "POST", "/api/v1/jobs/claim",
            json::object{
                {"queue_name", q}, {"worker_id", worker}, {"limit", 10}, {"wait_ms", 100}});
        if (r.status != 200) continue;
        for (const auto& j : r.body.at("jobs").as_array()) {
          const std::string id(j.at("id").as_string());
          auto done =
              c.JsonRequest("POST", "/api/v1/jobs/" + id + "/complete",
                            json::object{{"worker_id", worker}, {"lease_id", j.at("lease_id")}});
          if (done.status == 200) {
            std::lock_guard<std::mutex> l(mu);
            acked_completions.insert(id);
          }
        }
      }
    });
  }
  std::this_thread::sleep_for(milliseconds(2000));
  EXPECT_EQ(server.Kill(), 128 + 9);
  stop = true;
  for (auto& t : threads) t.join();
  ASSERT_GT(acked_enqueues.size(), 100u) << "the load did not run; server log:\n"
                                         << server.Stderr();

  ASSERT_TRUE(server.Restart());
  HttpClient c = server.Client();
  // Every job the server acknowledged is there, in a valid state.
  const std::set<std::string> valid = {"pending", "scheduled", "processing", "completed"};
  for (const auto& id : acked_enqueues) {
    auto r = c.JsonRequest("GET", "/api/v1/jobs/" + id);
    ASSERT_EQ(r.status, 200) << "acknowledged job " << id << " lost";
    const std::string status(r.body.at("status").as_string());
    EXPECT_TRUE(valid.count(status)) << id << " " << status;
    EXPECT_EQ(status == "processing", !r.body.at("lease_id").is_null()) << id;
    if (acked_completions.count(id)) {
      EXPECT_EQ(status, "completed") << id;
    }
  }
  // The store agrees with itself: counts add up to the jobs that exist.
  auto stats = c.JsonRequest("GET", "/api/v1/jobs/stats?queue_name=" + q);
  ASSERT_EQ(stats.status, 200);
  EXPECT_GE(stats.body.at("total").as_int64(), static_cast<int64_t>(acked_enqueues.size()));
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

}  // namespace
}  // namespace redrive::e2e
