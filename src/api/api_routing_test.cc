// Routing, service routes, auth and the body rules, through Api::Handle.
#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

TEST_F(ApiTest, UnknownRouteIs404) {
  Reply r = Get("/api/v1/nothing");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.Code(), "NOT_FOUND");
}

// Spooled's multi-tenant SaaS routes answer 404 with the reason they are
// out of scope, not a bare "no route".
TEST_F(ApiTest, OutOfScopeSpooledRoutesAre404NamingTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"POST", "/api/v1/organizations"}, {"GET", "/api/v1/organizations/usage"},
      {"GET", "/api/v1/billing/status"}, {"POST", "/api/v1/billing/portal"},
      {"GET", "/api/v1/admin/plans"},    {"POST", "/api/v1/auth/email/start"},
  };
  for (const auto& [method, target] : cases) {
    Reply r = Do(method, target, "{}");
    EXPECT_EQ(r.status, 404) << target;
    EXPECT_EQ(r.Code(), "NOT_FOUND") << target;
    EXPECT_NE(Str(r["message"]).find("out of scope"), std::string::npos)
        << target << ": " << r.raw.body;
  }
  // Anything else is a plain unknown route.
  Reply other = Get("/api/v1/organisations");
  EXPECT_EQ(other.status, 404);
  EXPECT_EQ(Str(other["message"]).find("out of scope"), std::string::npos);
}

TEST_F(ApiTest, WrongMethodIs405WithAllow) {
  Reply r = Do("PATCH", "/api/v1/jobs/abc");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Code(), "METHOD_NOT_ALLOWED");
  ASSERT_EQ(r.raw.headers.size(), 1u);
  EXPECT_EQ(r.raw.headers[0].first, "Allow");
  EXPECT_EQ(r.raw.headers[0].second, "GET, HEAD, DELETE");
  EXPECT_EQ(Get("/api/v1/jobs/claim").status, 405);
}

TEST_F(ApiTest, HeadIsAnsweredLikeGet) {
  Reply r = Do("HEAD", "/health");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r["status"], "healthy");  // the server, not the Api, drops the body
  Reconfigure({.keys = {{Role::kAdmin, "adm"}}});
  EXPECT_EQ(Do("HEAD", "/api/v1/jobs").status, 401);  // authenticated like GET
}

TEST_F(ApiTest, HealthRoutes) {
  Reply r = Get("/health");
  EXPECT_EQ(r.status, 200);
  // Spooled's HealthResponse, plus Redrive's version.
  EXPECT_EQ(r.json, boost::json::parse(
                        R"({"status":"healthy","database":true,"cache":true,"version":"0.1.0"})"));
  EXPECT_EQ(Get("/health/live").status, 200);
  Reply ready = Get("/health/ready");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready["status"], "ready");
}

TEST_F(ApiTest, HealthNeedsNoKeyButApiRoutesDo) {
  Reconfigure({.keys = {{Role::kAdmin, "adm"}}});
  EXPECT_EQ(Get("/health").status, 200);
  EXPECT_EQ(Get("/health/ready").status, 200);
  Reply r = Get("/api/v1/jobs");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.Code(), "UNAUTHORIZED");
  EXPECT_EQ(Get("/api/v1/jobs", "wrong").status, 401);
  EXPECT_EQ(Get("/api/v1/jobs", "adm").status, 200);
}

TEST_F(ApiTest, RolesAreEnforced) {
  std::string id = Enqueue();
  Reconfigure({.keys = {{Role::kAdmin, "adm"}, {Role::kWorker, "wrk"}, {Role::kViewer, "view"}}});
  const std::string job = R"({"queue_name":"q","payload":{}})";
  // Worker: producer and worker routes, reading one job; not listing or admin.
  EXPECT_EQ(Post("/api/v1/jobs", job, "wrk").status, 201);
  EXPECT_EQ(Get("/api/v1/jobs/" + id, "wrk").status, 200);
  EXPECT_EQ(Get("/api/v1/workers", "wrk").status, 200);
  Reply denied = Get("/api/v1/jobs", "wrk");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.Code(), "ACCESS_DENIED");
  EXPECT_EQ(Do("DELETE", "/api/v1/jobs/" + id, "", "wrk").status, 403);
  EXPECT_EQ(Post("/api/v1/queues/q/pause", "{}", "wrk").status, 403);
  // Viewer: GET only.
  EXPECT_EQ(Post("/api/v1/jobs", job, "view").status, 403);
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w"})", "view").status,
            403);
  EXPECT_EQ(Get("/api/v1/jobs", "view").status, 200);
  EXPECT_EQ(Get("/api/v1/queues", "view").status, 200);
  EXPECT_EQ(Get("/api/v1/jobs/dlq", "view").status, 200);
  // Admin: everything.
  EXPECT_EQ(Post("/api/v1/queues/q/pause", "{}", "adm").status, 200);
}

TEST_F(ApiTest, ViewerSeesNoPayloadOrResult) {
  std::string id = Enqueue();
  Reconfigure({.keys = {{Role::kWorker, "wrk"}, {Role::kViewer, "view"}}});
  Reply viewer = Get("/api/v1/jobs/" + id, "view");
  ASSERT_EQ(viewer.status, 200);
  EXPECT_FALSE(viewer.json.as_object().contains("payload"));
  EXPECT_FALSE(viewer.json.as_object().contains("result"));
  Reply worker = Get("/api/v1/jobs/" + id, "wrk");
  EXPECT_EQ(worker["payload"].at("n"), 1);
}

TEST_F(ApiTest, BodyMustBeJson) {
  Request r;
  r.method = "POST";
  r.target = "/api/v1/jobs";
  r.body = R"({"queue_name":"q","payload":{}})";
  r.headers["content-type"] = "text/plain";
  Reply wrong_type = Send(r);
  EXPECT_EQ(wrong_type.status, 415);
  EXPECT_EQ(wrong_type.Code(), "UNSUPPORTED_MEDIA_TYPE");
  r.headers["content-type"] = "application/json; charset=utf-8";
  EXPECT_EQ(Send(r).status, 201);

  Reply malformed = Post("/api/v1/jobs", R"({"queue_name":)");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(malformed.Code(), "BAD_REQUEST");
  Reply not_object = Post("/api/v1/jobs", "[1,2]");
  EXPECT_EQ(not_object.status, 400);
  EXPECT_EQ(not_object.Code(), "BAD_REQUEST");
  // An empty body is {}: then the required fields are missing.
  Reply empty = Post("/api/v1/jobs", "");
  EXPECT_EQ(empty.status, 400);
  EXPECT_EQ(empty.Code(), "VALIDATION_ERROR");
  EXPECT_EQ(empty.Field(), "queue_name");
}

TEST_F(ApiTest, SizeLimits) {
  Reconfigure({.limits = {.max_payload_bytes = 32, .max_body_bytes = 256}});
  Reply payload =
      Post("/api/v1/jobs", R"({"queue_name":"q","payload":")" + std::string(40, 'x') + R"("})");
  EXPECT_EQ(payload.status, 413);
  EXPECT_EQ(payload.Code(), "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(payload.Field(), "payload");
  Reply body = Post("/api/v1/jobs",
                    R"({"queue_name":"q","payload":{},"pad":")" + std::string(300, 'x') + R"("})");
  EXPECT_EQ(body.status, 413);
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{}})").status, 201);
}

// Path parameters are percent-decoded, and error messages may echo them: the
// body must stay valid UTF-8 JSON whatever bytes the client sent.
TEST_F(ApiTest, ErrorBodiesAreValidUtf8) {
  for (std::string target : {"/api/v1/jobs/%FF", "/api/v1/jobs/a%C3", "/api/v1/queues/%ED%A0%80x",
                             "/api/v1/jobs/%F4%90%80%80/cancel"}) {
    Request request;
    request.method = target.ends_with("/cancel") ? "POST" : "GET";
    request.target = target;
    auto promise = std::make_shared<std::promise<Response>>();
    api_->Handle(std::move(request), [promise](Response r) { promise->set_value(std::move(r)); });
    Response response = promise->get_future().get();
    EXPECT_GE(response.status, 400) << target;
    EXPECT_LT(response.status, 500) << target;
    boost::system::error_code ec;
    boost::json::value json = boost::json::parse(response.body, ec);  // validates UTF-8
    EXPECT_FALSE(ec) << target << ": " << ec.message();
  }
}

}  // namespace
}  // namespace redrive::api::testing
