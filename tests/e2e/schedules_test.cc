// Schedules through the real binary on its SQLite store: a schedule fires on
// its own, and a server that was stopped across several fire times backfills
// each of them once after its restart (the next fire time is stored, so the
// restarted server knows what it missed), without firing any time twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <thread>

#include "e2e/support/api_fixture.h"
#include "e2e/support/server_process.h"
#include "e2e/support/wait.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::string S(const json::value& v) { return std::string(v.as_string()); }

json::array Runs(HttpClient& c, const std::string& schedule) {
  auto r = c.JsonRequest("GET", "/api/v1/schedules/" + schedule + "/history?limit=500");
  EXPECT_EQ(r.status, 200) << r.raw.body;
  return r.status == 200 ? r.body.as_array() : json::array{};
}

TEST(SchedulesE2eTest, AStoppedServerBackfillsEachMissedFireTimeOnceAfterItsRestart) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  auto created = c.JsonRequest("POST", "/api/v1/schedules",
                               json::object{{"name", "tick"},
                                            {"cron_expression", "@every 1s"},
                                            {"queue_name", "ticks"},
                                            {"payload_template", json::object{{"n", 1}}},
                                            {"missed_run_policy", "backfill"},
                                            {"backfill_limit", 100}});
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string schedule = S(created.body.at("id"));
  ASSERT_TRUE(WaitUntil([&] { return Runs(c, schedule).size() >= 2; }, 30s)) << server.Stderr();

  // Down for at least 3 fire times.
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  std::this_thread::sleep_for(3500ms);  // the outage itself: fire times must pass while down
  ASSERT_TRUE(server.Restart());
  c = server.Client();
  // The restart's first pass backfills what passed while it was down.
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& run : Runs(c, schedule)) {
          if (S(run.at("kind")) == "backfill") return true;
        }
        return false;
      },
      30s))
      << server.Stderr();
  const size_t runs_now = Runs(c, schedule).size();
  ASSERT_TRUE(WaitUntil([&] { return Runs(c, schedule).size() >= runs_now + 2; }, 30s));
  ASSERT_EQ(
      c.JsonRequest("POST", "/api/v1/schedules/" + schedule + "/pause", json::object{}).status,
      200);

  // Paused: the history is final. Oldest first, every fire time one second
  // after the one before (none skipped, none twice), each with its job.
  json::array history = Runs(c, schedule);
  std::reverse(history.begin(), history.end());
  int backfilled = 0;
  std::map<std::string, int> jobs;
  for (size_t i = 0; i < history.size(); ++i) {
    const json::value& run = history[i];
    ASSERT_FALSE(run.at("job_id").is_null()) << run;
    ++jobs[S(run.at("job_id"))];
    if (S(run.at("kind")) == "backfill") ++backfilled;
    if (i > 0) {
      EXPECT_EQ(MillisBetween(history[i - 1].at("fire_time"), run.at("fire_time")), 1000)
          << history[i - 1] << " then " << run;
    }
  }
  // Down from before F+1 until after F+3 (F: the last time it fired before the
  // stop): F+1 and F+2 at least were missed; the latest due time is on time.
  EXPECT_GE(backfilled, 2) << history;
  EXPECT_EQ(jobs.size(), history.size()) << "a job for two runs";
  auto stats = c.JsonRequest("GET", "/api/v1/jobs/stats?queue_name=ticks");
  ASSERT_EQ(stats.status, 200);
  EXPECT_EQ(stats.body.at("total").as_int64(), static_cast<int64_t>(history.size()));
  auto paused = c.JsonRequest("GET", "/api/v1/schedules/" + schedule);
  EXPECT_EQ(paused.body.at("run_count").as_int64(), static_cast<int64_t>(history.size()));
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

}  // namespace
}  // namespace redrive::e2e
