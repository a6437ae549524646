// Operator routes through Api::Handle: listing, DLQ, queues, workers.
#include "api/api_test_util.h"
#include "core/error_fingerprint.h"
#include "core/time_format.h"

namespace redrive::api::testing {
namespace {

class ApiOperatorTest : public ApiTest {
 protected:
  // A job failed with no_retry: in the DLQ with reason non_retryable.
  std::string DeadJob(const std::string& queue = "q", const std::string& extra = "",
                      const std::string& error = "x") {
    std::string id = Enqueue(queue, extra);
    std::string lease = Str(ClaimOne(queue).at("lease_id"));
    boost::json::object fail{
        {"worker_id", "w1"}, {"lease_id", lease}, {"error", error}, {"no_retry", true}};
    Reply r = Post("/api/v1/jobs/" + id + "/fail", boost::json::serialize(fail));
    EXPECT_EQ(r["status"], "deadletter");
    return id;
  }
};

TEST_F(ApiOperatorTest, ListJobsWithFilters) {
  Enqueue("a", R"(,"tags":{"env":"prod"})");
  Enqueue("a");
  Enqueue("b");
  Reply all = Get("/api/v1/jobs");
  ASSERT_EQ(all.status, 200);
  EXPECT_EQ(all.json.as_array().size(), 3u);
  const auto& first = all.json.as_array()[0].as_object();
  EXPECT_TRUE(first.contains("attempt"));
  EXPECT_FALSE(first.contains("payload"));
  EXPECT_FALSE(first.contains("lease_id"));
  EXPECT_EQ(Get("/api/v1/jobs?queue_name=a").json.as_array().size(), 2u);
  EXPECT_EQ(Get("/api/v1/jobs?queue_name=a&tag=env%3Dprod").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs?status=pending&limit=1").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs?status=completed").json.as_array().size(), 0u);
  EXPECT_EQ(Get("/api/v1/jobs?status=bogus").Field(), "status");
  EXPECT_EQ(Get("/api/v1/jobs?limit=-1").Field(), "limit");
  EXPECT_EQ(Get("/api/v1/jobs?limit=ten").Field(), "limit");
  EXPECT_EQ(Get("/api/v1/jobs?offset=-1").Field(), "offset");
  EXPECT_EQ(Get("/api/v1/jobs?queue_name=.x").Field(), "queue_name");
}

TEST_F(ApiOperatorTest, StatusesStatsAndHistory) {
  std::string a = Enqueue(), b = Enqueue();
  Reply statuses = Get("/api/v1/jobs/status?ids=" + b + ",unknown," + a);
  ASSERT_EQ(statuses.status, 200);
  const auto& items = statuses.json.as_array();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(Str(items[0].at("id")), b);  // request order
  EXPECT_EQ(items[1].at("status"), "pending");
  EXPECT_EQ(Get("/api/v1/jobs/status").Field(), "ids");
  std::string many;
  for (int i = 0; i < 101; ++i) many += "id" + std::to_string(i) + ",";
  EXPECT_EQ(Get("/api/v1/jobs/status?ids=" + many).Field(), "ids");

  Reply stats = Get("/api/v1/jobs/stats?queue_name=q");
  EXPECT_EQ(stats["pending"], 2);
  EXPECT_EQ(stats["total"], 2);
  Reply history = Get("/api/v1/jobs/" + a + "/history");
  ASSERT_EQ(history.status, 200);
  ASSERT_GE(history.json.as_array().size(), 1u);
  EXPECT_EQ(history.json.as_array()[0].at("event_type"), "created");
  // [ext] the node that wrote the entry: this engine's (default) node id.
  EXPECT_EQ(history.json.as_array()[0].at("node_id"), engine_->node_id().c_str());
}

TEST_F(ApiOperatorTest, CancelRetryPriorityPayload) {
  std::string id = Enqueue();
  Reply prio = Do("PUT", "/api/v1/jobs/" + id + "/priority", R"({"priority":9})");
  EXPECT_EQ(prio.json,
            boost::json::parse(R"({"job_id":")" + id + R"(","old_priority":0,"new_priority":9})"));
  EXPECT_EQ(Do("PUT", "/api/v1/jobs/" + id + "/priority", R"({"priority":-101})").Field(),
            "priority");
  EXPECT_EQ(Do("PUT", "/api/v1/jobs/" + id + "/priority", "{}").Field(), "priority");
  // Payload repair and retry are for dead (or cancelled) jobs only.
  EXPECT_EQ(Do("PUT", "/api/v1/jobs/" + id + "/payload", R"({"payload":{}})").status, 409);
  Reply not_dead = Post("/api/v1/jobs/" + id + "/retry", "");
  EXPECT_EQ(not_dead.status, 409);
  EXPECT_EQ(not_dead.Code(), "CONFLICT");

  Reply cancel = Do("DELETE", "/api/v1/jobs/" + id);
  EXPECT_EQ(cancel.status, 204);
  EXPECT_TRUE(cancel.raw.body.empty());
  EXPECT_EQ(Do("DELETE", "/api/v1/jobs/" + id).status, 409);
  Reply retried = Post("/api/v1/jobs/" + id + "/retry", "");
  ASSERT_EQ(retried.status, 200) << retried.raw.body;
  EXPECT_EQ(retried["status"], "pending");
  EXPECT_EQ(Str(retried["id"]), id);
}

TEST_F(ApiOperatorTest, RetryDeadJobWithDeadline) {
  std::string id = DeadJob();
  Reply repaired = Do("PUT", "/api/v1/jobs/" + id + "/payload", R"({"payload":{"fixed":true}})");
  ASSERT_EQ(repaired.status, 200) << repaired.raw.body;
  EXPECT_EQ(repaired["payload"].at("fixed"), true);
  EXPECT_EQ(Post("/api/v1/jobs/" + id + "/retry", R"({"expires_at":"later"})").Field(),
            "expires_at");
  Reply past = Post("/api/v1/jobs/" + id + "/retry", R"({"expires_at":"2000-01-01T00:00:00Z"})");
  EXPECT_EQ(past.status, 400) << past.raw.body;  // checked by the engine, which has the clock
  Reply r = Post("/api/v1/jobs/" + id + "/retry", R"({"expires_at":"2099-01-01T00:00:00Z"})");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["retry_count"], 0);
  EXPECT_TRUE(r["dead_reason"].is_null());
  EXPECT_EQ(r["expires_at"], "2099-01-01T00:00:00.000Z");
}

// target_queue [ext]: a redrive into another queue, one job or a selection.
// The target is created with the defaults; a disabled one is refused, as is
// a name that is no queue name; the history says from where to where.
TEST_F(ApiOperatorTest, RetryIntoATargetQueue) {
  const std::string one = DeadJob("payments");
  Reply moved = Post("/api/v1/jobs/" + one + "/retry", R"({"target_queue":"payments-slow"})");
  ASSERT_EQ(moved.status, 200) << moved.raw.body;
  EXPECT_EQ(moved["queue_name"], "payments-slow");
  EXPECT_EQ(moved["status"], "pending");
  EXPECT_EQ(Str(ClaimOne("payments-slow").at("id")), one);
  Reply history = Get("/api/v1/jobs/" + one + "/history");
  bool recorded = false;
  for (const auto& h : history.json.as_array()) {
    const auto& details = h.at("details");
    if (details.is_object() && details.as_object().contains("to_queue")) {
      EXPECT_EQ(details.at("from_queue"), "payments");
      EXPECT_EQ(details.at("to_queue"), "payments-slow");
      recorded = true;
    }
  }
  EXPECT_TRUE(recorded) << history.raw.body;

  const std::string a = DeadJob("payments");
  const std::string b = DeadJob("payments");
  Reply bulk =
      Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"payments","target_queue":"payments-slow"})");
  ASSERT_EQ(bulk.status, 200) << bulk.raw.body;
  EXPECT_EQ(bulk["retried_count"], 2);
  for (const std::string& id : {a, b})
    EXPECT_EQ(Get("/api/v1/jobs/" + id)["queue_name"], "payments-slow");

  EXPECT_EQ(
      Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"payments","target_queue":"a b"})").Field(),
      "target_queue");
  EXPECT_EQ(Post("/api/v1/jobs/" + one + "/retry", R"({"target_queue":7})").Field(),
            "target_queue");
  const std::string c = DeadJob("payments");
  Enqueue("closed");
  ASSERT_EQ(Do("PUT", "/api/v1/queues/closed/config", R"({"enabled":false})").status, 200);
  Reply refused = Post("/api/v1/jobs/" + c + "/retry", R"({"target_queue":"closed"})");
  EXPECT_EQ(refused.status, 409) << refused.raw.body;
  EXPECT_EQ(Get("/api/v1/jobs/" + c)["status"], "deadletter");
  EXPECT_EQ(Get("/api/v1/jobs/" + c)["queue_name"], "payments");
}

TEST_F(ApiOperatorTest, DlqListRetryAndDryRun) {
  std::string id = DeadJob();
  Reply list = Get("/api/v1/jobs/dlq?queue_name=q");
  ASSERT_EQ(list.json.as_array().size(), 1u);
  const auto& dead = list.json.as_array()[0];
  EXPECT_EQ(dead.at("dead_reason"), "non_retryable");
  EXPECT_EQ(dead.at("last_error"), "x");
  EXPECT_TRUE(dead.at("deadlettered_at").is_string());
  EXPECT_EQ(Get("/api/v1/jobs/dlq?dead_reason=expired").json.as_array().size(), 0u);
  EXPECT_EQ(Get("/api/v1/jobs/dlq?dead_reason=nope").Field(), "dead_reason");

  Reply dry = Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"q","dry_run":true})");
  EXPECT_EQ(dry.json,
            boost::json::parse(R"({"matched_count":1,"selected_count":1,"dry_run":true})"));
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["status"], "deadletter");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/retry", R"({"limit":1001})").Field(), "limit");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/retry", R"({"dead_reason":"x"})").Field(), "dead_reason");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/retry", R"({"job_ids":[1]})").Field(), "job_ids[0]");

  Reply retried = Post("/api/v1/jobs/dlq/retry", R"({"job_ids":[")" + id + R"("]})");
  EXPECT_EQ(retried["retried_count"], 1);
  EXPECT_EQ(retried["matched_count"], 1);
  EXPECT_EQ(retried["selected_count"], 1);
  EXPECT_FALSE(retried.json.as_object().contains("first_due_at"));  // not throttled
  EXPECT_EQ(Str(retried["retried_jobs"].as_array()[0]), id);
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["status"], "pending");
}

// A throttled redrive's slowest rate still schedules every job within the
// limit of a few months, never past the year 9999 the time format can carry.
TEST_F(ApiOperatorTest, DlqRetryRateIsBounded) {
  std::string first = DeadJob();
  std::string second = DeadJob();
  for (std::string rate : {"1e-9", "0.00009", "0", "-1", "1000001"}) {
    Reply r =
        Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"q","rate_per_second":)" + rate + "}");
    EXPECT_EQ(r.status, 400) << rate;
    EXPECT_EQ(r.Field(), "rate_per_second") << rate;
  }
  EXPECT_EQ(Get("/api/v1/jobs/" + first)["status"], "deadletter");
  Reply slowest = Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"q","rate_per_second":0.0001})");
  ASSERT_EQ(slowest.status, 200) << slowest.raw.body;
  EXPECT_EQ(slowest["retried_count"], 2);
  EXPECT_EQ(Str(slowest["first_due_at"]), FormatTime(clock_.Now()));
  EXPECT_EQ(Str(slowest["last_due_at"]), FormatTime(clock_.Now() + std::chrono::seconds(10'000)));
  // Job 1 (from 0) is due 1 / 0.0001 s = 10,000 s later.
  Reply later = Get("/api/v1/jobs/" + Str(slowest["retried_jobs"].as_array()[1]));
  EXPECT_EQ(Str(later["scheduled_at"]), FormatTime(clock_.Now() + std::chrono::seconds(10'000)));
}

TEST_F(ApiOperatorTest, DlqSummaryGroupsAndErrorPrefixNarrows) {
  DeadJob("a");
  DeadJob("a");
  DeadJob("b");
  Reply summary = Get("/api/v1/jobs/dlq/summary");
  ASSERT_EQ(summary.status, 200);
  const auto& groups = summary.json.as_array();
  ASSERT_EQ(groups.size(), 2u);
  const auto& a = groups[0].as_object();
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(a.at("queue_name"), "a");
  EXPECT_EQ(a.at("dead_reason"), "non_retryable");
  EXPECT_EQ(a.at("error"), "x");
  EXPECT_EQ(a.at("count"), 2);
  EXPECT_LE(Str(a.at("oldest_deadlettered_at")), Str(a.at("newest_deadlettered_at")));
  EXPECT_EQ(groups[1].at("queue_name"), "b");
  EXPECT_EQ(groups[1].at("count"), 1);
  EXPECT_EQ(Get("/api/v1/jobs/dlq/summary?queue_name=b").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs/dlq/summary?limit=101").status, 200);  // capped at 100
  EXPECT_EQ(Get("/api/v1/jobs/dlq/summary?limit=-5").Field(), "limit");
  EXPECT_EQ(Get("/api/v1/jobs/dlq?error_prefix=x").json.as_array().size(), 3u);
  EXPECT_EQ(Get("/api/v1/jobs/dlq?error_prefix=X").json.as_array().size(), 0u);
  Reply dry = Post("/api/v1/jobs/dlq/retry", R"({"error_prefix":"y","dry_run":true})");
  EXPECT_EQ(dry["matched_count"], 0);
  // Nothing matched: the classes closest to what was asked, in the summary's shape.
  ASSERT_EQ(dry["closest_classes"].as_array().size(), 2u);
  EXPECT_EQ(dry["closest_classes"].as_array()[0].at("error"), "x");
  EXPECT_EQ(dry["closest_classes"].as_array()[0].at("count"), 2);
  Reply found = Post("/api/v1/jobs/dlq/retry", R"({"error_prefix":"x","dry_run":true,"limit":2})");
  EXPECT_EQ(found.json,
            boost::json::parse(R"({"matched_count":3,"selected_count":2,"dry_run":true})"));
  Reply no_purge =
      Post("/api/v1/jobs/dlq/purge",
           R"({"confirm":true,"dry_run":true,"queue_name":"a","dead_reason":"expired"})");
  EXPECT_EQ(no_purge["matched_count"], 0);
  EXPECT_EQ(no_purge["closest_classes"].as_array().size(), 1u);
  EXPECT_EQ(Post("/api/v1/jobs/dlq/retry", R"({"error_prefix":true})").Field(), "error_prefix");
  Reply purged =
      Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"error_prefix":"x","queue_name":"b"})");
  EXPECT_EQ(purged["purged_count"], 1);
}

TEST_F(ApiOperatorTest, PurgeNeedsConfirmTrue) {
  DeadJob();
  for (const char* body :
       {"{}", R"({"confirm":false})", R"({"confirm":"true"})", R"({"confirm":1})"}) {
    Reply r = Post("/api/v1/jobs/dlq/purge", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.Code(), "BAD_REQUEST") << body;
  }
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"older_than":"x"})").Field(),
            "older_than");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"limit":10001})").Field(), "limit");
  Reply r = Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"queue_name":"q"})");
  EXPECT_EQ(r.json, boost::json::parse(R"({"purged_count":1})"));
}

TEST_F(ApiOperatorTest, PurgeByReasonAndTagWithDryRun) {
  DeadJob("q", R"(,"tags":{"env":"prod"})");
  DeadJob("q", R"(,"tags":{"env":"dev"})");
  DeadJob("q");
  // A dry run still needs confirm: every purge request carries it.
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"dry_run":true})").Code(), "BAD_REQUEST");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dry_run":"yes"})").Field(),
            "dry_run");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dead_reason":"nope"})").Field(),
            "dead_reason");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dead_reason":1})").Field(),
            "dead_reason");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"tag":5})").Field(), "tag");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"tag":""})").Field(), "tag");

  Reply dry = Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dry_run":true})");
  EXPECT_EQ(dry.json, boost::json::parse(R"({"matched_count":3,"dry_run":true})"));
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dry_run":true,"limit":2})")
                .json.at("matched_count"),
            2);
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge",
                 R"({"confirm":true,"dry_run":true,"dead_reason":"lease_expired"})")
                .json.at("matched_count"),
            0);
  EXPECT_EQ(Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dry_run":true,"tag":"env"})")
                .json.at("matched_count"),
            2);
  EXPECT_EQ(Get("/api/v1/jobs/dlq").json.as_array().size(), 3u);  // dry runs delete nothing

  Reply by_tag = Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"tag":"env=prod"})");
  EXPECT_EQ(by_tag.json, boost::json::parse(R"({"purged_count":1})"));
  Reply by_reason =
      Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dead_reason":"lease_expired"})");
  EXPECT_EQ(by_reason["purged_count"], 0);
  EXPECT_EQ(Get("/api/v1/jobs/dlq").json.as_array().size(), 2u);
  by_reason = Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"dead_reason":"non_retryable"})");
  EXPECT_EQ(by_reason["purged_count"], 2);
}

TEST_F(ApiOperatorTest, Queues) {
  Enqueue("emails");
  Reply list = Get("/api/v1/queues");
  ASSERT_EQ(list.json.as_array().size(), 1u);
  const auto& q = list.json.as_array()[0];
  EXPECT_EQ(q.at("queue_name"), "emails");
  EXPECT_EQ(q.at("counts").at("pending"), 1);
  EXPECT_TRUE(q.at("oldest_deadletter_at").is_null());
  EXPECT_EQ(Get("/api/v1/queues/emails")["enabled"], true);
  EXPECT_EQ(Get("/api/v1/queues/nope").status, 404);
  EXPECT_EQ(Get("/api/v1/queues/emails/stats")["pending"], 1);
  EXPECT_EQ(Get("/api/v1/queues/nope/stats").status, 404);

  Reply config = Do("PUT", "/api/v1/queues/emails/config",
                    R"({"max_retries":5,"default_timeout":60,"backoff":{"base_ms":10,"max_ms":20},
                        "retention":{"completed_seconds":60,"cancelled_seconds":null}})");
  ASSERT_EQ(config.status, 200) << config.raw.body;
  EXPECT_EQ(config["max_retries"], 5);
  EXPECT_EQ(config["default_timeout"], 60);
  EXPECT_EQ(config["retention"].at("completed_seconds"), 60);
  EXPECT_TRUE(config["retention"].at("cancelled_seconds").is_null());
  EXPECT_EQ(Do("PUT", "/api/v1/queues/emails/config", R"({"default_timeout":0})").Field(),
            "default_timeout");
  EXPECT_EQ(Do("PUT", "/api/v1/queues/emails/config", R"({"enabled":"yes"})").Field(), "enabled");
  EXPECT_EQ(Do("PUT", "/api/v1/queues/-bad/config", "{}").Field(), "queue_name");

  Reply paused = Post("/api/v1/queues/emails/pause", R"({"reason":"deploy"})");
  EXPECT_EQ(paused["paused"], true);
  EXPECT_EQ(paused["paused_reason"], "deploy");
  Reply none = Post("/api/v1/jobs/claim", R"({"queue_name":"emails","worker_id":"w"})");
  EXPECT_EQ(none["jobs"].as_array().size(), 0u);
  EXPECT_EQ(Post("/api/v1/queues/emails/resume", "")["paused"], false);

  EXPECT_EQ(Do("DELETE", "/api/v1/queues/emails?delete_jobs=maybe").Field(), "delete_jobs");
  EXPECT_EQ(Do("DELETE", "/api/v1/queues/emails?delete_jobs=true").status, 204);
  EXPECT_EQ(Get("/api/v1/queues/emails").status, 404);
}

TEST_F(ApiOperatorTest, PauseAndResumeAQueueBeforeItsFirstJob) {
  EXPECT_EQ(Get("/api/v1/queues/billing").status, 404);
  Reply paused = Post("/api/v1/queues/billing/pause", R"({"reason":"launch on Monday"})");
  ASSERT_EQ(paused.status, 200) << paused.raw.body;
  EXPECT_EQ(paused["paused"], true);
  EXPECT_EQ(Get("/api/v1/queues/billing")["paused"], true);
  Enqueue("billing");
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"queue_name":"billing","worker_id":"w"})")["jobs"]
                .as_array()
                .size(),
            0u);
  Reply resumed = Post("/api/v1/queues/invoices/resume", "");
  ASSERT_EQ(resumed.status, 200) << resumed.raw.body;
  EXPECT_EQ(resumed["paused"], false);
  EXPECT_EQ(Post("/api/v1/queues/-bad/pause", "{}").Field(), "queue_name");
}

TEST_F(ApiOperatorTest, Workers) {
  Reply reg = Post("/api/v1/workers/register",
                   R"({"queue_name":"q","hostname":"h1","max_concurrency":4,"metadata":{"r":1}})");
  ASSERT_EQ(reg.status, 201) << reg.raw.body;
  std::string id = Str(reg["id"]);
  EXPECT_EQ(reg.json, boost::json::parse(R"({"id":")" + id + R"(","queue_name":"q",
      "lease_duration_secs":30,"heartbeat_interval_secs":10})"));
  EXPECT_EQ(Post("/api/v1/workers/register", R"({"queue_name":"q"})").Field(), "hostname");
  EXPECT_EQ(
      Post("/api/v1/workers/register", R"({"queue_name":"q","hostname":"h","metadata":1})").Field(),
      "metadata");

  Reply hb = Post("/api/v1/workers/" + id + "/heartbeat", R"({"current_jobs":2})");
  ASSERT_EQ(hb.status, 200) << hb.raw.body;
  EXPECT_EQ(hb["current_jobs"], 2);
  EXPECT_EQ(Post("/api/v1/workers/" + id + "/heartbeat", R"({"current_jobs":-1})").Field(),
            "current_jobs");
  Reply one = Get("/api/v1/workers/" + id);
  EXPECT_EQ(one["hostname"], "h1");
  EXPECT_EQ(one["metadata"].at("r"), 1);
  EXPECT_EQ(Get("/api/v1/workers").json.as_array().size(), 1u);
  EXPECT_EQ(Post("/api/v1/workers/" + id + "/deregister", "").status, 204);
  EXPECT_EQ(Get("/api/v1/workers/nope").status, 404);
}

// Spooled's QueueStats: active_workers counts this queue's workers that are
// not offline; a day with nothing done has no averages.
TEST_F(ApiOperatorTest, QueueStatsCarrySpooledsFields) {
  Enqueue("emails");
  auto reg = [&](const std::string& queue, const std::string& id) {
    return Post("/api/v1/workers/register",
                R"({"queue_name":")" + queue + R"(","hostname":"h","worker_id":")" + id + R"("})")
        .status;
  };
  ASSERT_EQ(reg("emails", "a"), 201);
  ASSERT_EQ(reg("emails", "b"), 201);
  ASSERT_EQ(reg("other", "c"), 201);
  ASSERT_EQ(Post("/api/v1/workers/b/deregister", "").status, 204);
  Reply s = Get("/api/v1/queues/emails/stats");
  ASSERT_EQ(s.status, 200) << s.raw.body;
  EXPECT_EQ(s["queue_name"], "emails");
  EXPECT_EQ(s["pending_jobs"], 1);
  EXPECT_EQ(s["processing_jobs"], 0);
  EXPECT_EQ(s["active_workers"], 1);
  EXPECT_EQ(s["completed_jobs_24h"], 0);
  EXPECT_EQ(s["failed_jobs_24h"], 0);
  EXPECT_TRUE(s["avg_processing_time_ms"].is_null());
  EXPECT_TRUE(s["avg_wait_time_ms"].is_null());
  EXPECT_EQ(s["max_job_age_seconds"], 0);    // enqueued just now
  clock_.Advance(std::chrono::seconds(31));  // three missed heartbeat intervals: offline
  Reply later = Get("/api/v1/queues/emails/stats");
  EXPECT_EQ(later["active_workers"], 0);
  EXPECT_EQ(later["max_job_age_seconds"], 31);
}

// The 24-hour figures come from the hourly totals that each sample of the
// throughput sampler adds to: what the queue's claims waited and its
// completions took, its completions and the jobs that failed for good;
// a day later they are gone. The oldest waiting job's age is live.
TEST_F(ApiOperatorTest, QueueStatsCountTheLastDayFromTheHourlyTotals) {
  using std::chrono::seconds;
  engine_->RunServicesOnce();  // the sampler's baseline
  const std::string done = Enqueue("emails");
  clock_.Advance(seconds(2));
  const std::string lease = Str(ClaimOne("emails").at("lease_id"));  // waited 2 s
  clock_.Advance(seconds(3));
  ASSERT_EQ(Post("/api/v1/jobs/" + done + "/complete",
                 R"({"worker_id":"w1","lease_id":")" + lease + R"("})")
                .status,
            200);     // took 3 s
  DeadJob("emails");  // claimed at once, failed for good
  Enqueue("emails");  // still waiting
  Enqueue("other");
  ClaimOne("other");
  EXPECT_EQ(Get("/api/v1/queues/emails/stats")["completed_jobs_24h"], 0);  // not sampled yet
  clock_.Advance(seconds(10));
  engine_->RunServicesOnce();

  Reply s = Get("/api/v1/queues/emails/stats");
  ASSERT_EQ(s.status, 200) << s.raw.body;
  EXPECT_EQ(s["completed_jobs_24h"], 1);
  EXPECT_EQ(s["failed_jobs_24h"], 1);
  EXPECT_EQ(s["failed_attempts_24h"], 1);
  EXPECT_EQ(s["avg_processing_time_ms"], 3000);
  EXPECT_EQ(s["avg_wait_time_ms"], 1000);  // (2 s + 0 s) / 2 claims
  EXPECT_EQ(s["max_job_age_seconds"], 10);

  Reply dashboard = Get("/api/v1/dashboard");
  EXPECT_EQ(dashboard["jobs"].at("completed_24h"), 1);
  EXPECT_EQ(dashboard["jobs"].at("failed_24h"), 1);
  EXPECT_EQ(dashboard["jobs"].at("avg_processing_time_ms"), 3000);
  EXPECT_EQ(dashboard["jobs"].at("avg_wait_time_ms"), 667);  // (2 s + 0 + 0) / 3 claims

  clock_.Advance(std::chrono::hours(25));
  engine_->RunServicesOnce();
  Reply day_after = Get("/api/v1/queues/emails/stats");
  EXPECT_EQ(day_after["completed_jobs_24h"], 0);
  EXPECT_TRUE(day_after["avg_processing_time_ms"].is_null());
  EXPECT_EQ(day_after["max_job_age_seconds"], 25 * 3600 + 10);
}

}  // namespace
}  // namespace redrive::api::testing

namespace redrive::api::testing {
namespace {

TEST_F(ApiOperatorTest, DlqSummaryGroupsErrorsByFingerprint) {
  DeadJob("gw", "", "upstream 504 after 30s");
  clock_.Advance(std::chrono::seconds(5));
  DeadJob("gw", "", "upstream 504 after 20s");
  DeadJob("gw", "", "upstream 502 after 20s");
  Reply summary = Get("/api/v1/jobs/dlq/summary?queue_name=gw");
  ASSERT_EQ(summary.status, 200) << summary.raw.body;
  const auto& groups = summary.json.as_array();
  ASSERT_EQ(groups.size(), 2u) << summary.raw.body;
  const auto& c = groups[0].as_object();
  EXPECT_EQ(c.at("count"), 2);
  EXPECT_EQ(c.at("normalized_error"), "upstream 504 after <n>s");
  EXPECT_EQ(c.at("error"), "upstream 504 after 20s");  // the example: the smallest error
  const std::string fp = Str(c.at("fingerprint"));
  EXPECT_EQ(fp, ErrorFingerprint("upstream 504 after 45s"));
  EXPECT_EQ(c.at("first_seen"), c.at("oldest_deadlettered_at"));
  EXPECT_EQ(c.at("last_seen"), c.at("newest_deadlettered_at"));
  EXPECT_LT(Str(c.at("first_seen")), Str(c.at("last_seen")));
  EXPECT_EQ(groups[1].at("normalized_error"), "upstream 502 after <n>s");

  // The list, the summary, retry and purge select the class by fingerprint.
  EXPECT_EQ(Get("/api/v1/jobs/dlq?fingerprint=" + fp).json.as_array().size(), 2u);
  EXPECT_EQ(Get("/api/v1/jobs/dlq/summary?fingerprint=" + fp).json.as_array().size(), 1u);
  Reply dry = Post("/api/v1/jobs/dlq/retry", R"({"fingerprint":")" + fp + R"(","dry_run":true})");
  EXPECT_EQ(dry.json,
            boost::json::parse(R"({"matched_count":2,"selected_count":2,"dry_run":true})"));
  Reply retried =
      Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"gw","fingerprint":")" + fp + R"("})");
  ASSERT_EQ(retried.status, 200) << retried.raw.body;
  EXPECT_EQ(retried["retried_count"], 2);
  EXPECT_EQ(Get("/api/v1/jobs/dlq?queue_name=gw").json.as_array().size(), 1u);
  const std::string other = Str(groups[1].at("fingerprint"));
  Reply purge_dry = Post("/api/v1/jobs/dlq/purge",
                         R"({"confirm":true,"dry_run":true,"fingerprint":")" + other + R"("})");
  EXPECT_EQ(purge_dry["matched_count"], 1);
  Reply purged =
      Post("/api/v1/jobs/dlq/purge", R"({"confirm":true,"fingerprint":")" + other + R"("})");
  EXPECT_EQ(purged["purged_count"], 1);
  EXPECT_TRUE(Get("/api/v1/jobs/dlq?queue_name=gw").json.as_array().empty());
}

TEST_F(ApiOperatorTest, AFingerprintThatIsNotOneIsRefusedNamingTheField) {
  // (An empty ?fingerprint= is no filter, as an empty ?error_prefix= is.)
  for (const std::string bad :
       {"abc", "0123456789ABCDEF", "0123456789abcdeg", "0123456789abcdef0", "%20123456789abcdef"}) {
    EXPECT_EQ(Get("/api/v1/jobs/dlq?fingerprint=" + bad).Field(), "fingerprint") << bad;
    EXPECT_EQ(Get("/api/v1/jobs/dlq/summary?fingerprint=" + bad).Field(), "fingerprint") << bad;
  }
  for (const std::string bad :
       {R"("")", R"("abc")", R"(42)", R"(["0123456789abcdef"])", R"("0123456789ABCDEF")"}) {
    Reply retry = Post("/api/v1/jobs/dlq/retry", R"({"dry_run":true,"fingerprint":)" + bad + "}");
    EXPECT_EQ(retry.status, 400) << bad;
    EXPECT_EQ(retry.Field(), "fingerprint") << bad;
    Reply purge = Post("/api/v1/jobs/dlq/purge",
                       R"({"confirm":true,"dry_run":true,"fingerprint":)" + bad + "}");
    EXPECT_EQ(purge.Field(), "fingerprint") << bad;
  }
  // A well-formed fingerprint that no class has matches nothing.
  Reply none = Get("/api/v1/jobs/dlq?fingerprint=0123456789abcdef");
  EXPECT_EQ(none.status, 200);
  EXPECT_TRUE(none.json.as_array().empty());
}

}  // namespace
}  // namespace redrive::api::testing
