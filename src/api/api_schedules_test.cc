// /schedules through Api::Handle: Spooled's shapes, validation naming the
// field, roles, the schedule limit, trigger, firing and history, and the
// schedule.triggered webhook.
#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

constexpr char kDaily[] =
    R"({"name":"nightly","cron_expression":"0 30 2 * * *","timezone":"Europe/Berlin",)"
    R"("queue_name":"reports","payload_template":{"kind":"nightly"},"priority":5,)"
    R"("max_retries":2,"timeout_seconds":600,"tags":{"team":"ops"},"metadata":{"owner":"amy"}})";

class ApiSchedulesTest : public ApiTest {
 protected:
  std::string Create(const std::string& body = kDaily) {
    Reply r = Post("/api/v1/schedules", body);
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return r.status == 201 ? Str(r["id"]) : "";
  }
  Reply Put(const std::string& target, const std::string& body, const std::string& key = "") {
    return Do("PUT", target, body, key);
  }
  // The field a refused create names.
  std::string CreateField(const std::string& body) {
    Reply r = Post("/api/v1/schedules", body);
    EXPECT_EQ(r.status, 400) << body << " → " << r.raw.body;
    return r.status == 400 ? r.Field() : "";
  }
};

TEST_F(ApiSchedulesTest, CreateAnswers201WithSpooledsFieldsAndTheExtensions) {
  Reply r = Post("/api/v1/schedules", kDaily);
  ASSERT_EQ(r.status, 201) << r.raw.body;
  EXPECT_EQ(r["name"], "nightly");
  EXPECT_EQ(r["cron_expression"], "0 30 2 * * *");
  EXPECT_EQ(r["timezone"], "Europe/Berlin");
  EXPECT_EQ(r["queue_name"], "reports");
  EXPECT_EQ(r["payload_template"].at("kind"), "nightly");
  EXPECT_EQ(r["priority"], 5);
  EXPECT_EQ(r["max_retries"], 2);
  EXPECT_EQ(r["timeout_seconds"], 600);
  EXPECT_EQ(r["tags"].at("team"), "ops");
  EXPECT_EQ(r["metadata"].at("owner"), "amy");
  EXPECT_EQ(r["is_active"], true);
  EXPECT_EQ(r["run_count"], 0);
  EXPECT_TRUE(r["last_run_at"].is_null());
  EXPECT_TRUE(r["description"].is_null());
  EXPECT_EQ(r["organization_id"], "default");
  EXPECT_EQ(r["missed_run_policy"], "skip");
  EXPECT_EQ(r["overlap_policy"], "allow");
  EXPECT_EQ(r["backfill_limit"], 10);
  // The clock starts at 2027-01-15T08:00:00Z: 02:30 in Berlin (UTC+1) is 01:30Z next day.
  EXPECT_EQ(r["next_run_at"], "2027-01-16T01:30:00.000Z");
  const std::string id = Str(r["id"]);

  Reply got = Get("/api/v1/schedules/" + id);
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.json, r.json);
  Reply list = Get("/api/v1/schedules");
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.json.as_array().size(), 1u);
  EXPECT_EQ(list.json.as_array()[0], r.json);
  EXPECT_EQ(Get("/api/v1/schedules?is_active=false").json.as_array().size(), 0u);
  EXPECT_EQ(Get("/api/v1/schedules?queue_name=reports").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/schedules?organization_id=any").json.as_array().size(), 1u);
}

TEST_F(ApiSchedulesTest, EveryBadFieldIsA400NamingIt) {
  EXPECT_EQ(CreateField(R"({"cron_expression":"@hourly","queue_name":"q"})"), "name");
  EXPECT_EQ(CreateField(R"({"name":"n","queue_name":"q"})"), "cron_expression");
  EXPECT_EQ(CreateField(R"({"name":"n","cron_expression":"@hourly"})"), "queue_name");
  EXPECT_EQ(CreateField(R"({"name":"","cron_expression":"@hourly","queue_name":"q"})"), "name");
  EXPECT_EQ(CreateField(R"({"name":")" + std::string(256, 'n') +
                        R"(","cron_expression":"@hourly","queue_name":"q"})"),
            "name");
  EXPECT_EQ(CreateField(R"({"name":"n","description":")" + std::string(1001, 'd') +
                        R"(","cron_expression":"@hourly","queue_name":"q"})"),
            "description");
  EXPECT_EQ(CreateField(R"({"name":"n","cron_expression":"@hourly","queue_name":"no spaces"})"),
            "queue_name");
  EXPECT_EQ(
      CreateField(
          R"({"name":"n","cron_expression":"@hourly","queue_name":"q","timezone":"Mars/Olympus"})"),
      "timezone");
  const std::string base = R"({"name":"n","cron_expression":"@hourly","queue_name":"q",)";
  EXPECT_EQ(CreateField(base + R"("priority":1000})"), "priority");
  EXPECT_EQ(CreateField(base + R"("max_retries":-1})"), "max_retries");
  EXPECT_EQ(CreateField(base + R"("timeout_seconds":0})"), "timeout_seconds");
  EXPECT_EQ(CreateField(base + R"("tags":{"a":1}})"), "tags.a");
  EXPECT_EQ(CreateField(base + R"("tags":{"schedule_id":"x"}})"), "tags");
  EXPECT_EQ(CreateField(base + R"("metadata":[1]})"), "metadata");
  EXPECT_EQ(CreateField(base + R"("is_active":"yes"})"), "is_active");
  EXPECT_EQ(CreateField(base + R"("missed_run_policy":"later"})"), "missed_run_policy");
  EXPECT_EQ(CreateField(base + R"("overlap_policy":"queue"})"), "overlap_policy");
  EXPECT_EQ(CreateField(base + R"("backfill_limit":0})"), "backfill_limit");
  EXPECT_EQ(CreateField(base + R"("backfill_limit":1001})"), "backfill_limit");
  // A misspelt field is refused, not ignored.
  EXPECT_EQ(CreateField(base + R"("queue":"other"})"), "queue");
  // Tags leave room for the schedule's own.
  std::string tags = R"("tags":{)";
  for (int i = 0; i < 32; ++i)
    tags += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":\"v\"";
  EXPECT_EQ(CreateField(base + tags + "}}"), "tags");
  // The payload template has the job payload's limit: 413 naming it.
  Reply big =
      Post("/api/v1/schedules", base + R"("payload_template":")" +
                                    std::string(options_.limits.max_payload_bytes, 'x') + R"("})");
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.Field(), "payload_template");
  EXPECT_EQ(Get("/api/v1/schedules").json.as_array().size(), 0u);
}

TEST_F(ApiSchedulesTest, AnInvalidCronNamesTheFieldAndThePosition) {
  Reply r =
      Post("/api/v1/schedules", R"({"name":"n","cron_expression":"0 0 * * FRY","queue_name":"q"})");
  ASSERT_EQ(r.status, 400) << r.raw.body;
  EXPECT_EQ(r.Code(), "VALIDATION_ERROR");
  EXPECT_EQ(r.Field(), "cron_expression");
  const std::string message = Str(r["message"]);
  EXPECT_NE(message.find("day_of_week"), std::string::npos) << message;
  EXPECT_NE(message.find("position 9"), std::string::npos) << message;
  // The same on update.
  const std::string id = Create();
  Reply u = Put("/api/v1/schedules/" + id, R"({"cron_expression":"61 * * * *"})");
  ASSERT_EQ(u.status, 400);
  EXPECT_EQ(u.Field(), "cron_expression");
  EXPECT_NE(Str(u["message"]).find("minute"), std::string::npos) << u.raw.body;
}

TEST_F(ApiSchedulesTest, UpdatePauseResumeAndDelete) {
  const std::string id = Create();
  const std::string path = "/api/v1/schedules/" + id;
  Reply u = Put(path, R"({"cron_expression":"@hourly","timezone":"UTC","description":"d"})");
  ASSERT_EQ(u.status, 200) << u.raw.body;
  EXPECT_EQ(u["cron_expression"], "@hourly");
  EXPECT_EQ(u["description"], "d");
  EXPECT_EQ(u["name"], "nightly");  // untouched
  EXPECT_EQ(u["next_run_at"], "2027-01-15T09:00:00.000Z");
  EXPECT_TRUE(Put(path, R"({"description":null})")["description"].is_null());

  Reply paused = Post(path + "/pause", "");
  ASSERT_EQ(paused.status, 200) << paused.raw.body;
  EXPECT_EQ(paused["is_active"], false);
  EXPECT_TRUE(paused["next_run_at"].is_null());
  clock_.Advance(std::chrono::hours(3));
  Reply resumed = Post(path + "/resume", "");
  ASSERT_EQ(resumed.status, 200);
  EXPECT_EQ(resumed["is_active"], true);
  EXPECT_EQ(resumed["next_run_at"], "2027-01-15T12:00:00.000Z");

  EXPECT_EQ(Do("DELETE", path).status, 204);
  EXPECT_EQ(Get(path).status, 404);
  EXPECT_EQ(Do("DELETE", path).status, 404);
  EXPECT_EQ(Put(path, R"({"name":"x"})").status, 404);
  EXPECT_EQ(Post(path + "/pause", "").status, 404);
  EXPECT_EQ(Post(path + "/trigger", "").status, 404);
  EXPECT_EQ(Get(path + "/history").status, 404);
}

TEST_F(ApiSchedulesTest, TriggerEnqueuesAJobTaggedWithTheScheduleAndHistoryShowsIt) {
  const std::string id = Create();
  Reply t = Post("/api/v1/schedules/" + id + "/trigger", "");
  ASSERT_EQ(t.status, 200) << t.raw.body;
  const std::string job_id = Str(t["job_id"]);
  EXPECT_EQ(t["triggered_at"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(t["scheduled_at"], t["triggered_at"]);
  Reply job = Get("/api/v1/jobs/" + job_id);
  ASSERT_EQ(job.status, 200);
  EXPECT_EQ(job["queue_name"], "reports");
  EXPECT_EQ(job["payload"].at("kind"), "nightly");
  EXPECT_EQ(job["priority"], 5);
  EXPECT_EQ(Str(job["tags"].at("schedule_id")), id);
  EXPECT_EQ(job["tags"].at("team"), "ops");

  Reply h = Get("/api/v1/schedules/" + id + "/history");
  ASSERT_EQ(h.status, 200) << h.raw.body;
  ASSERT_EQ(h.json.as_array().size(), 1u);
  const auto& run = h.json.as_array()[0].as_object();
  EXPECT_EQ(Str(run.at("schedule_id")), id);
  EXPECT_EQ(Str(run.at("job_id")), job_id);
  EXPECT_EQ(run.at("status"), "pending");
  EXPECT_EQ(run.at("kind"), "manual");
  EXPECT_EQ(run.at("job_status"), "pending");
  EXPECT_TRUE(run.at("error_message").is_null());
  EXPECT_EQ(run.at("started_at"), "2027-01-15T08:00:00.000Z");
  // The job runs: the history follows it.
  ClaimOne("reports");
  EXPECT_EQ(Get("/api/v1/schedules/" + id + "/history").json.as_array()[0].at("status"), "running");
  EXPECT_EQ(Get("/api/v1/schedules/" + id + "/history?limit=0").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/schedules/" + id + "/history?limit=-1").Field(), "limit");
  EXPECT_EQ(Get("/api/v1/schedules/" + id + "/history?offset=1").json.as_array().size(), 0u);
}

TEST_F(ApiSchedulesTest, ATriggerHeldBackByTheOverlapPolicyIs409AndASkippedRun) {
  const std::string id = Create(
      R"({"name":"n","cron_expression":"@hourly","queue_name":"q","overlap_policy":"skip_if_running"})");
  ASSERT_EQ(Post("/api/v1/schedules/" + id + "/trigger", "").status, 200);
  clock_.Advance(std::chrono::seconds(1));  // newest first: the second run on top
  Reply second = Post("/api/v1/schedules/" + id + "/trigger", "");
  EXPECT_EQ(second.status, 409) << second.raw.body;
  EXPECT_EQ(second.Code(), "CONFLICT");
  Reply h = Get("/api/v1/schedules/" + id + "/history");
  ASSERT_EQ(h.json.as_array().size(), 2u);
  EXPECT_EQ(h.json.as_array()[0].at("status"), "skipped");
  EXPECT_TRUE(h.json.as_array()[0].at("job_id").is_null());
  EXPECT_NE(Str(h.json.as_array()[0].at("error_message")).find("still pending"), std::string::npos);
}

TEST_F(ApiSchedulesTest, TheServiceFiresADueScheduleOnceAndItShowsInTheSchedule) {
  const std::string id =
      Create(R"({"name":"n","cron_expression":"*/30 * * * * *","queue_name":"q"})");
  clock_.Advance(std::chrono::seconds(30));
  engine_->RunServicesOnce();
  engine_->RunServicesOnce();  // the same tick again: nothing more
  Reply s = Get("/api/v1/schedules/" + id);
  EXPECT_EQ(s["run_count"], 1);
  EXPECT_EQ(s["last_run_at"], "2027-01-15T08:00:30.000Z");
  EXPECT_EQ(s["next_run_at"], "2027-01-15T08:01:00.000Z");
  Reply h = Get("/api/v1/schedules/" + id + "/history");
  ASSERT_EQ(h.json.as_array().size(), 1u);
  EXPECT_EQ(h.json.as_array()[0].at("kind"), "scheduled");
  EXPECT_EQ(h.json.as_array()[0].at("fire_time"), "2027-01-15T08:00:30.000Z");
  EXPECT_EQ(Get("/api/v1/jobs?queue_name=q").json.as_array().size(), 1u);
}

TEST_F(ApiSchedulesTest, ScheduleTriggeredGoesToSubscribedWebhooks) {
  Reply hook =
      Post("/api/v1/outgoing-webhooks", R"({"name":"ops","url":"https://hooks.example.com/r",)"
                                        R"("events":["schedule.triggered"]})");
  ASSERT_EQ(hook.status, 201) << hook.raw.body;
  const std::string id = Create();
  Reply t = Post("/api/v1/schedules/" + id + "/trigger", "");
  ASSERT_EQ(t.status, 200);
  Reply d = Get("/api/v1/outgoing-webhooks/" + Str(hook["id"]) + "/deliveries");
  ASSERT_EQ(d.status, 200);
  ASSERT_EQ(d.json.as_array().size(), 1u);
  const auto& delivery = d.json.as_array()[0].as_object();
  EXPECT_EQ(delivery.at("event"), "schedule.triggered");
  const auto& data = delivery.at("body").at("data");
  EXPECT_EQ(Str(data.at("schedule_id")), id);
  EXPECT_EQ(data.at("schedule_name"), "nightly");
  EXPECT_EQ(data.at("job_id"), t["job_id"]);
  EXPECT_EQ(data.at("kind"), "manual");
  EXPECT_EQ(data.at("queue_name"), "reports");
}

TEST_F(ApiSchedulesTest, ViewersReadAdminsWriteWorkersNeither) {
  const std::string id = Create();
  ApiOptions o;
  o.keys = {
      {Role::kAdmin, "admin-key"}, {Role::kViewer, "viewer-key"}, {Role::kWorker, "worker-key"}};
  Reconfigure(o);
  const std::string path = "/api/v1/schedules/" + id;
  EXPECT_EQ(Get("/api/v1/schedules", "viewer-key").status, 200);
  EXPECT_EQ(Get(path, "viewer-key").status, 200);
  EXPECT_EQ(Get(path + "/history", "viewer-key").status, 200);
  EXPECT_EQ(Post("/api/v1/schedules", kDaily, "viewer-key").status, 403);
  EXPECT_EQ(Put(path, R"({"name":"x"})", "viewer-key").status, 403);
  EXPECT_EQ(Post(path + "/trigger", "", "viewer-key").status, 403);
  EXPECT_EQ(Do("DELETE", path, "", "viewer-key").status, 403);
  EXPECT_EQ(Get("/api/v1/schedules", "worker-key").status, 403);
  EXPECT_EQ(Post(path + "/pause", "", "admin-key").status, 200);
  // An admin change is audited with its target.
  Reply audit = Get("/api/v1/audit?action=schedule.pause", "admin-key");
  ASSERT_EQ(audit.status, 200) << audit.raw.body;
  ASSERT_EQ(audit["entries"].as_array().size(), 1u);
  EXPECT_EQ(Str(audit["entries"].as_array()[0].at("targets").as_array()[0]), "schedule:" + id);
}

// A server with room for two schedules, each keeping two runs.
class ApiScheduleLimitTest : public ApiSchedulesTest {
 protected:
  void SetUp() override {
    ApiSchedulesTest::SetUp();
    api_.reset();
    engine_.reset();
    engine_ = std::make_unique<engine::Engine>(
        *store_, clock_, random_,
        engine::EngineOptions{.max_schedules = 2, .schedule_history_keep = 2});
    ASSERT_TRUE(engine_->Start().ok());
    api_ = std::make_unique<Api>(*engine_, options_);
  }
};

TEST_F(ApiScheduleLimitTest, CreatingPastMaxSchedulesIs409UntilOneIsDeleted) {
  const std::string first = Create();
  Create();
  Reply third = Post("/api/v1/schedules", kDaily);
  EXPECT_EQ(third.status, 409) << third.raw.body;
  EXPECT_NE(Str(third["message"]).find("--max-schedules"), std::string::npos);
  EXPECT_EQ(Do("DELETE", "/api/v1/schedules/" + first).status, 204);
  Create();
}

TEST_F(ApiScheduleLimitTest, RetentionKeepsTheNewestRunsOfEachSchedule) {
  const std::string id = Create();
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(std::chrono::seconds(1));
    ASSERT_EQ(Post("/api/v1/schedules/" + id + "/trigger", "").status, 200);
  }
  // The engine's own background loop runs retention too, and may have run it
  // since the triggers (a slow machine): 3 runs, or already 2.
  ASSERT_GE(Get("/api/v1/schedules/" + id + "/history").json.as_array().size(), 2u);
  engine_->RunServicesOnce();
  Reply h = Get("/api/v1/schedules/" + id + "/history");
  ASSERT_EQ(h.json.as_array().size(), 2u);
  EXPECT_EQ(h.json.as_array()[0].at("started_at"), "2027-01-15T08:00:03.000Z");
  EXPECT_EQ(h.json.as_array()[1].at("started_at"), "2027-01-15T08:00:02.000Z");
  // The jobs stay: retention of runs is not retention of jobs.
  EXPECT_EQ(Get("/api/v1/schedules/" + id).json.at("run_count"), 3);
}

}  // namespace
}  // namespace redrive::api::testing
