#include "e2e/support/api_fixture.h"

#include "core/time_format.h"

namespace redrive::e2e {

void ApiTest::SetUp() {
  SharedServerTest::SetUp();
  if (HasFatalFailure()) return;
  client_ = std::make_unique<HttpClient>(server_->Client());
}

JsonResponse ApiTest::Post(const std::string& path, const json::value& body) {
  return client_->JsonRequest("POST", "/api/v1" + path, body);
}
JsonResponse ApiTest::Put(const std::string& path, const json::value& body) {
  return client_->JsonRequest("PUT", "/api/v1" + path, body);
}
JsonResponse ApiTest::Get(const std::string& path) {
  return client_->JsonRequest("GET", "/api/v1" + path);
}
JsonResponse ApiTest::Delete(const std::string& path) {
  return client_->JsonRequest("DELETE", "/api/v1" + path);
}

std::string ApiTest::Enqueue(const std::string& queue, json::object extra) {
  extra["queue_name"] = queue;
  if (!extra.contains("payload")) extra["payload"] = json::object{{"n", 1}};
  auto r = Post("/jobs", extra);
  EXPECT_EQ(r.status, 201) << r.raw.body;
  if (r.status != 201) return "";
  return std::string(r.body.at("id").as_string());
}

json::array ApiTest::Claim(const std::string& queue, const std::string& worker, int limit,
                           int wait_ms, int lease_secs) {
  auto r = Post("/jobs/claim", json::object{{"queue_name", queue},
                                            {"worker_id", worker},
                                            {"limit", limit},
                                            {"wait_ms", wait_ms},
                                            {"lease_duration_secs", lease_secs}});
  EXPECT_EQ(r.status, 200) << r.raw.body;
  if (r.status != 200) return {};
  return r.body.at("jobs").as_array();
}

std::string ApiTest::MakeDeadJob(const std::string& queue, const std::string& error, bool no_retry,
                                 json::object extra) {
  extra["max_retries"] = 0;
  const std::string id = Enqueue(queue, std::move(extra));
  auto jobs = Claim(queue, "test-worker");
  EXPECT_EQ(jobs.size(), 1u);
  if (jobs.empty()) return id;
  json::object fail{
      {"worker_id", "test-worker"}, {"lease_id", jobs[0].at("lease_id")}, {"error", error}};
  if (no_retry) fail["no_retry"] = true;
  auto r = Post("/jobs/" + id + "/fail", fail);
  EXPECT_EQ(r.status, 200) << r.raw.body;
  return id;
}

json::object ApiTest::Job(const std::string& id) {
  auto r = Get("/jobs/" + id);
  EXPECT_EQ(r.status, 200) << r.raw.body;
  return r.status == 200 ? r.body.as_object() : json::object{};
}

std::vector<std::string> ApiTest::HistoryTypes(const std::string& id) {
  auto r = Get("/jobs/" + id + "/history");
  EXPECT_EQ(r.status, 200) << r.raw.body;
  std::vector<std::string> out;
  if (r.status != 200) return out;
  for (const auto& e : r.body.as_array()) out.emplace_back(e.at("event_type").as_string());
  return out;
}

long long MillisBetween(const json::value& a, const json::value& b) {
  auto ta = ParseTime(std::string(a.as_string()));
  auto tb = ParseTime(std::string(b.as_string()));
  EXPECT_TRUE(ta && tb) << a << " " << b;
  if (!ta || !tb) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(*tb - *ta).count();
}

}  // namespace redrive::e2e
