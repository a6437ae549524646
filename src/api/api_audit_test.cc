// Operator routes: Idempotency-Key (replay, conflicts, expiry, scope) and the
// audit log (what each route kind records, GET /api/v1/audit, retention).
#include "api/api_test_util.h"
#include "api/auth.h"
#include "api/operator_route.h"
#include "api/routes.h"
#include "core/time_format.h"

namespace redrive::api::testing {
namespace {

class ApiAuditTest : public ApiTest {
 protected:
  Reply Call(std::string method, std::string target, std::string body = "",
             std::map<std::string, std::string> headers = {}, std::string key = "") {
    Request r;
    r.method = std::move(method);
    r.target = std::move(target);
    r.body = std::move(body);
    r.client_address = "192.0.2.7";
    r.request_id = "req-" + std::to_string(++requests_);
    if (!r.body.empty()) r.headers["content-type"] = "application/json";
    if (!key.empty()) r.headers["authorization"] = "Bearer " + key;
    for (auto& [k, v] : headers) r.headers[k] = v;
    return Send(std::move(r));
  }
  Reply WithKey(std::string method, std::string target, std::string idempotency_key,
                std::string body = "") {
    return Call(std::move(method), std::move(target), std::move(body),
                {{"idempotency-key", std::move(idempotency_key)}});
  }
  // Enqueues a job to `queue` and fails for good the job a claim then takes
  // (the oldest pending one); returns that job's id.
  std::string DeadJob(const std::string& queue = "q") {
    Enqueue(queue);
    boost::json::object claimed = ClaimOne(queue);
    const std::string id = Str(claimed.at("id"));
    std::string lease = Str(claimed.at("lease_id"));
    Reply r = Post("/api/v1/jobs/" + id + "/fail", R"({"worker_id":"w1","lease_id":")" + lease +
                                                       R"(","error":"x","no_retry":true})");
    EXPECT_EQ(r["status"], "deadletter");
    return id;
  }
  std::string JobStatus(const std::string& id) { return Str(Get("/api/v1/jobs/" + id)["status"]); }
  // The audit log's entries (newest first) for `query`.
  boost::json::array Audit(const std::string& query = "", const std::string& key = "") {
    Reply r = Get("/api/v1/audit" + query, key);
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? r["entries"].as_array() : boost::json::array();
  }
  static bool HasHeader(const Reply& r, const std::string& name, const std::string& value) {
    for (const auto& [n, v] : r.raw.headers) {
      if (n == name && v == value) return true;
    }
    return false;
  }
  void UseKeys() {
    ApiOptions o;
    o.keys = {{Role::kAdmin, "admin-key-one", "oncall"},
              {Role::kAdmin, "admin-key-two"},
              {Role::kViewer, "viewer-key"},
              {Role::kWorker, "worker-key"}};
    Reconfigure(o);
  }

  int requests_ = 0;
};

// The route table says which routes are operator mutations; a new admin
// route that changes something cannot forget to be one.
TEST(OperatorRoutesTest, EveryAdminMutationHasAnAuditActionAndOnlyThose) {
  for (const Route& route : AllRoutes()) {
    const bool admin_mutation = route.method != "GET" && route.access == kAdminOnly;
    EXPECT_EQ(!route.audit_action.empty(), admin_mutation) << route.method << " " << route.pattern;
  }
}

TEST(OperatorRoutesTest, CanonicalJsonSortsKeysAndDropsSpaces) {
  EXPECT_EQ(CanonicalJson(R"( { "b" : [ 1, {"d":2,"c":3} ], "a" : null } )"),
            R"({"a":null,"b":[1,{"c":3,"d":2}]})");
  EXPECT_EQ(CanonicalJson(""), "{}");
  EXPECT_EQ(CanonicalJson("not json"), "not json");
}

TEST_F(ApiAuditTest, DoubleRetryAnswersTheFirstAnswerAndRedrivesOnce) {
  const std::string id = DeadJob();
  Reply first = WithKey("POST", "/api/v1/jobs/" + id + "/retry", "retry-1");
  ASSERT_EQ(first.status, 200) << first.raw.body;
  EXPECT_EQ(first["status"], "pending");
  EXPECT_FALSE(HasHeader(first, "Idempotent-Replayed", "true"));
  // The job dies again; a replay must not revive it a second time.
  std::string lease = Str(ClaimOne().at("lease_id"));
  Post("/api/v1/jobs/" + id + "/fail",
       R"({"worker_id":"w1","lease_id":")" + lease + R"(","error":"x","no_retry":true})");
  ASSERT_EQ(JobStatus(id), "deadletter");

  Reply again = WithKey("POST", "/api/v1/jobs/" + id + "/retry", "retry-1");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.raw.body, first.raw.body);  // verbatim: still says "pending"
  EXPECT_TRUE(HasHeader(again, "Idempotent-Replayed", "true"));
  EXPECT_EQ(JobStatus(id), "deadletter");
  EXPECT_EQ(Audit("?action=job.retry").size(), 1u);  // one change, one entry
}

TEST_F(ApiAuditTest, DoubleDlqRetryRedrivesOnce) {
  DeadJob();
  DeadJob();
  const std::string body = R"({"queue_name":"q"})";
  Reply first = WithKey("POST", "/api/v1/jobs/dlq/retry", "dlq-1", body);
  ASSERT_EQ(first.status, 200) << first.raw.body;
  EXPECT_EQ(first["retried_count"], 2);
  DeadJob();  // a new dead job: a second run would take it
  // The same body with other spacing and key order is the same request.
  Reply again = WithKey("POST", "/api/v1/jobs/dlq/retry", "dlq-1", R"( { "queue_name" : "q" } )");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.raw.body, first.raw.body);
  EXPECT_EQ(Get("/api/v1/jobs/dlq?queue_name=q").json.as_array().size(), 1u);
}

TEST_F(ApiAuditTest, SameKeyForAnotherRequestIs409NamingTheHeader) {
  const std::string id = Enqueue();
  ASSERT_EQ(WithKey("PUT", "/api/v1/jobs/" + id + "/priority", "k", R"({"priority":5})").status,
            200);
  Reply other_body = WithKey("PUT", "/api/v1/jobs/" + id + "/priority", "k", R"({"priority":6})");
  EXPECT_EQ(other_body.status, 409);
  EXPECT_EQ(other_body.Code(), "CONFLICT");
  EXPECT_EQ(other_body.Field(), "Idempotency-Key");
  Reply other_route = WithKey("POST", "/api/v1/queues/q/pause", "k");
  EXPECT_EQ(other_route.status, 409);
  EXPECT_EQ(other_route.Field(), "Idempotency-Key");
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["priority"], 5);
  EXPECT_FALSE(Get("/api/v1/queues/q")["paused"].as_bool());
}

TEST_F(ApiAuditTest, AMalformedRequestFreesItsKeyARefusedOneKeepsIt) {
  const std::string id = Enqueue();
  Reply bad = WithKey("PUT", "/api/v1/jobs/" + id + "/priority", "fix-me", R"({"priority":500})");
  EXPECT_EQ(bad.status, 400);
  Reply fixed = WithKey("PUT", "/api/v1/jobs/" + id + "/priority", "fix-me", R"({"priority":5})");
  EXPECT_EQ(fixed.status, 200) << fixed.raw.body;
  EXPECT_FALSE(HasHeader(fixed, "Idempotent-Replayed", "true"));
  // A refusal of the operation itself is the answer: replayed.
  Reply refused = WithKey("POST", "/api/v1/jobs/" + id + "/retry", "pending-retry");
  EXPECT_EQ(refused.status, 409);
  Reply again = WithKey("POST", "/api/v1/jobs/" + id + "/retry", "pending-retry");
  EXPECT_EQ(again.status, 409);
  EXPECT_TRUE(HasHeader(again, "Idempotent-Replayed", "true"));
}

TEST_F(ApiAuditTest, KeyIsRememberedFor24Hours) {
  ASSERT_EQ(WithKey("POST", "/api/v1/queues/q/pause", "pause-1").status, 200);
  ASSERT_EQ(Post("/api/v1/queues/q/resume", "").status, 200);
  clock_.Advance(std::chrono::hours(24) - std::chrono::seconds(1));
  Reply replay = WithKey("POST", "/api/v1/queues/q/pause", "pause-1");
  EXPECT_TRUE(HasHeader(replay, "Idempotent-Replayed", "true"));
  EXPECT_FALSE(Get("/api/v1/queues/q")["paused"].as_bool());  // nothing ran
  clock_.Advance(std::chrono::seconds(1));
  Reply fresh = WithKey("POST", "/api/v1/queues/q/pause", "pause-1");
  EXPECT_EQ(fresh.status, 200);
  EXPECT_FALSE(HasHeader(fresh, "Idempotent-Replayed", "true"));
  EXPECT_TRUE(Get("/api/v1/queues/q")["paused"].as_bool());
  EXPECT_EQ(Audit("?action=queue.pause").size(), 2u);
}

TEST_F(ApiAuditTest, AnUnansweredKeyIs409InProgress) {
  ASSERT_EQ(WithKey("POST", "/api/v1/queues/q/pause", "crash-1").status, 200);
  // As if the server had stopped between the pause and the record of its
  // answer: the key is reserved with the request's fingerprint, no answer.
  {
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok());
    auto held = (*tx)->GetIdempotencyRecord("local", "crash-1");
    ASSERT_TRUE(held.ok() && held->has_value());
    IdempotencyRecord reserved = **held;
    ASSERT_TRUE((*tx)->DeleteIdempotencyKey("local", "crash-1").ok());
    ASSERT_TRUE((*tx)->ReserveIdempotencyKey(reserved).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  Reply r = WithKey("POST", "/api/v1/queues/q/pause", "crash-1");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.Field(), "Idempotency-Key");
  EXPECT_NE(Str(r["message"]).find("no answer yet"), std::string::npos) << r.raw.body;
}

TEST_F(ApiAuditTest, KeysAreScopedToTheCallersApiKey) {
  UseKeys();
  Reply one =
      Call("POST", "/api/v1/queues/a/pause", "", {{"idempotency-key", "same"}}, "admin-key-one");
  Reply two =
      Call("POST", "/api/v1/queues/b/pause", "", {{"idempotency-key", "same"}}, "admin-key-two");
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(two.status, 200);  // not a conflict: another caller's key space
  EXPECT_EQ(Str(two["queue_name"]), "b");
}

TEST_F(ApiAuditTest, BadHeadersAre400NamingTheHeaderAndChangeNothing) {
  for (const std::string& bad :
       {std::string("has space"), std::string(256, 'k'), std::string("é")}) {
    Reply r = WithKey("POST", "/api/v1/queues/q/pause", bad);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(r.Field(), "Idempotency-Key");
  }
  for (const std::string& bad : {std::string("50% off"), std::string("tab\there"),
                                 std::string(501, 'r'), std::string("%FF")}) {
    Reply r = Call("POST", "/api/v1/queues/q/pause", "", {{"x-redrive-reason", bad}});
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(r.Field(), "X-Redrive-Reason");
  }
  EXPECT_EQ(Get("/api/v1/queues/q").status, 404);  // no pause ran
  EXPECT_TRUE(Audit().empty());
}

TEST_F(ApiAuditTest, EntriesRecordWhoWhatAndWhy) {
  const std::string dead = DeadJob();
  UseKeys();
  Reply r =
      Call("POST", "/api/v1/jobs/dlq/retry", R"({"queue_name":"q"})",
           {{"x-redrive-reason", "gateway fixed, INC-4411 %E2%80%94 caf%C3%A9"}}, "admin-key-one");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  boost::json::array entries = Audit("", "admin-key-one");
  ASSERT_EQ(entries.size(), 1u);
  const auto& e = entries[0].as_object();
  EXPECT_EQ(Str(e.at("actor")), "oncall");
  EXPECT_EQ(Str(e.at("role")), "admin");
  EXPECT_EQ(Str(e.at("client_address")), "192.0.2.7");
  EXPECT_EQ(Str(e.at("method")), "POST");
  EXPECT_EQ(Str(e.at("route")), "/api/v1/jobs/dlq/retry");
  EXPECT_EQ(Str(e.at("action")), "dlq.retry");
  ASSERT_EQ(e.at("targets").as_array().size(), 1u);
  EXPECT_EQ(Str(e.at("targets").as_array()[0]), "job:" + dead);
  EXPECT_EQ(Str(e.at("selector")), R"({"queue_name":"q"})");
  EXPECT_EQ(e.at("count"), 1);
  EXPECT_EQ(e.at("status"), 200);
  EXPECT_EQ(Str(e.at("request_id")), "req-1");
  EXPECT_EQ(Str(e.at("reason")), "gateway fixed, INC-4411 — café");
  EXPECT_EQ(Str(e.at("at")), FormatTime(clock_.Now()));

  // An unnamed key is a label from its hash, never the key.
  ASSERT_EQ(Call("POST", "/api/v1/queues/q/resume", "", {}, "admin-key-two").status, 200);
  const std::string label = Str(Audit("?action=queue.resume", "viewer-key")[0].at("actor"));
  EXPECT_EQ(label.substr(0, 6), "admin#");
  EXPECT_EQ(label.size(), 14u);
  EXPECT_EQ(label.find("admin-key-two"), std::string::npos);
}

TEST_F(ApiAuditTest, EveryRouteKindIsRecordedWithItsTarget) {
  const std::string b = DeadJob(), c = DeadJob("purged"), a = Enqueue();
  (void)c;
  Reply hook =
      Post("/api/v1/outgoing-webhooks",
           R"({"name":"ops","url":"https://hooks.example.com/r","events":["job.failed"]})");
  ASSERT_EQ(hook.status, 201) << hook.raw.body;
  const std::string hook_id = Str(hook["id"]);
  struct Case {
    std::string method, target, body, action, first_target;
  };
  const std::vector<Case> cases = {
      {"PUT", "/api/v1/jobs/" + a + "/priority", R"({"priority":3})", "job.priority", "job:" + a},
      {"PUT", "/api/v1/jobs/" + b + "/payload", R"({"payload":{"fixed":true}})", "job.payload",
       "job:" + b},
      {"POST", "/api/v1/jobs/" + b + "/retry", "", "job.retry", "job:" + b},
      {"DELETE", "/api/v1/jobs/" + a, "", "job.cancel", "job:" + a},
      {"POST", "/api/v1/jobs/dlq/purge", R"({"queue_name":"purged","confirm":true})", "dlq.purge",
       ""},
      {"PUT", "/api/v1/queues/q/config", R"({"max_retries":2})", "queue.config", "queue:q"},
      {"POST", "/api/v1/queues/q/pause", "", "queue.pause", "queue:q"},
      {"POST", "/api/v1/queues/q/resume", "", "queue.resume", "queue:q"},
      {"DELETE", "/api/v1/queues/purged", "", "queue.delete", "queue:purged"},
      {"PUT", "/api/v1/outgoing-webhooks/" + hook_id, R"({"enabled":false})", "webhook.update",
       "webhook:" + hook_id},
      {"DELETE", "/api/v1/outgoing-webhooks/" + hook_id, "", "webhook.delete",
       "webhook:" + hook_id},
  };
  for (const Case& k : cases) {
    clock_.Advance(std::chrono::seconds(1));  // one instant each: newest first is this order
    Reply r = Call(k.method, k.target, k.body);
    ASSERT_LT(r.status, 300) << k.method << " " << k.target << ": " << r.raw.body;
    boost::json::array entries = Audit("?action=" + k.action);
    ASSERT_EQ(entries.size(), 1u) << k.action;
    const auto& e = entries[0].as_object();
    EXPECT_EQ(e.at("status"), r.status) << k.action;
    const auto& targets = e.at("targets").as_array();
    if (k.first_target.empty()) {
      EXPECT_TRUE(targets.empty()) << k.action;
    } else {
      ASSERT_FALSE(targets.empty()) << k.action;
      EXPECT_EQ(Str(targets[0]), k.first_target) << k.action;
    }
  }
  EXPECT_EQ(Audit("?action=dlq.purge")[0].at("count"), 1);
  // The webhook's creation names the id only the answer knew.
  EXPECT_EQ(Str(Audit("?action=webhook.create")[0].at("targets").as_array()[0]),
            "webhook:" + hook_id);
  // A job's timeline: everything that touched it, newest first.
  boost::json::array on_b = Audit("?target=job:" + b);
  ASSERT_EQ(on_b.size(), 2u);
  EXPECT_EQ(Str(on_b[0].at("action")), "job.retry");
  EXPECT_EQ(Str(on_b[1].at("action")), "job.payload");
}

TEST_F(ApiAuditTest, RefusedMutationsAreRecordedWithTheirStatus) {
  const std::string pending = Enqueue();
  Reply r = Post("/api/v1/jobs/" + pending + "/retry", "");
  EXPECT_EQ(r.status, 409);
  boost::json::array entries = Audit();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].at("status"), 409);
  EXPECT_TRUE(entries[0].at("count").is_null());
}

TEST_F(ApiAuditTest, ListFiltersPagesAndRoles) {
  UseKeys();
  for (const char* q : {"a", "b", "c"}) {
    ASSERT_EQ(
        Call("POST", std::string("/api/v1/queues/") + q + "/pause", "", {}, "admin-key-one").status,
        200);
    clock_.Advance(std::chrono::seconds(10));
  }
  ASSERT_EQ(Call("POST", "/api/v1/queues/a/resume", "", {}, "admin-key-two").status, 200);
  EXPECT_EQ(Audit("?actor=oncall", "admin-key-one").size(), 3u);
  EXPECT_EQ(Audit("?target=queue:a", "admin-key-one").size(), 2u);
  const std::string t0 = FormatTime(clock_.Now() - std::chrono::seconds(15));
  EXPECT_EQ(Audit("?since=" + t0, "admin-key-one").size(), 2u);
  EXPECT_EQ(Audit("?until=" + t0, "admin-key-one").size(), 2u);

  Reply page = Get("/api/v1/audit?limit=3", "admin-key-one");
  ASSERT_EQ(page["entries"].as_array().size(), 3u);
  EXPECT_EQ(Str(page["entries"].as_array()[0].at("action")), "queue.resume");
  const std::string cursor = Str(page["next_cursor"]);
  Reply next = Get("/api/v1/audit?limit=3&cursor=" + cursor, "admin-key-one");
  ASSERT_EQ(next["entries"].as_array().size(), 1u);
  EXPECT_EQ(Str(next["entries"].as_array()[0].at("targets").as_array()[0]), "queue:a");
  EXPECT_TRUE(next["next_cursor"].is_null());

  // Viewers read it without client addresses; workers do not.
  boost::json::array seen = Audit("", "viewer-key");
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_FALSE(seen[0].as_object().contains("client_address"));
  EXPECT_TRUE(Audit("", "admin-key-one")[0].as_object().contains("client_address"));
  EXPECT_EQ(Get("/api/v1/audit", "worker-key").status, 403);

  EXPECT_EQ(Get("/api/v1/audit?since=yesterday", "viewer-key").Field(), "since");
  EXPECT_EQ(Get("/api/v1/audit?cursor=nope", "viewer-key").Field(), "cursor");
  EXPECT_EQ(Get("/api/v1/audit?limit=-1", "viewer-key").Field(), "limit");
  // Out-of-range limits clamp, as on every list route.
  Reply clamped_high = Get("/api/v1/audit?limit=201", "viewer-key");
  ASSERT_EQ(clamped_high.status, 200);
  EXPECT_EQ(clamped_high["entries"].as_array().size(), 4u);
  Reply clamped_low = Get("/api/v1/audit?limit=0", "viewer-key");
  ASSERT_EQ(clamped_low.status, 200);
  EXPECT_EQ(clamped_low["entries"].as_array().size(), 1u);
  EXPECT_FALSE(clamped_low["next_cursor"].is_null());
  EXPECT_EQ(Get("/api/v1/audit?actor=" + std::string(301, 'a'), "viewer-key").Field(), "actor");
}

TEST_F(ApiAuditTest, RetentionPrunesOldEntriesAndExpiredKeys) {
  ASSERT_EQ(WithKey("POST", "/api/v1/queues/q/pause", "old").status, 200);
  clock_.Advance(std::chrono::hours(24 * 89));
  ASSERT_EQ(Post("/api/v1/queues/q/resume", "").status, 200);
  engine_->RunServicesOnce();
  EXPECT_EQ(Audit().size(), 2u);
  {
    auto tx = store_->BeginRead();
    ASSERT_TRUE(tx.ok());
    auto record = (*tx)->GetIdempotencyRecord("local", "old");
    ASSERT_TRUE(record.ok());
    EXPECT_FALSE(record->has_value());  // expired after 24 h, pruned
  }
  clock_.Advance(std::chrono::hours(24) + std::chrono::seconds(1));  // the pause is 90 days old
  engine_->RunServicesOnce();
  boost::json::array left = Audit();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(Str(left[0].at("action")), "queue.resume");
}

}  // namespace
}  // namespace redrive::api::testing
