// The console's routes: embedded files with their headers, GET /api/v1/me in
// every auth situation, and GET /api/v1/throughput.
#include <gtest/gtest.h>

#include <future>

#include "api/api_test_util.h"
#include "api/console_assets.h"

namespace redrive::api {
namespace {

using testing::ApiTest;

std::string HeaderOf(const Response& r, std::string_view name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return "";
}

class ConsoleTest : public ApiTest {
 protected:
  // The raw answer (Send() insists on JSON).
  Response Raw(std::string target, std::string if_none_match = "") {
    Request r;
    r.method = "GET";
    r.target = std::move(target);
    if (!if_none_match.empty()) r.headers["if-none-match"] = if_none_match;
    std::promise<Response> promise;
    api_->Handle(std::move(r), [&](Response response) { promise.set_value(std::move(response)); });
    return promise.get_future().get();
  }
  void ExpectSecurityHeaders(const Response& r) {
    EXPECT_EQ(HeaderOf(r, "Content-Security-Policy").rfind("default-src 'self'", 0), 0u);
    EXPECT_EQ(HeaderOf(r, "X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(HeaderOf(r, "X-Frame-Options"), "DENY");
  }
  void UseKeys() {
    ApiOptions o;
    o.keys = {
        {Role::kAdmin, "admin-key"}, {Role::kViewer, "viewer-key"}, {Role::kWorker, "worker-key"}};
    Reconfigure(o);
  }
};

TEST_F(ConsoleTest, RootServesIndexHtmlWithSecurityAndCacheHeaders) {
  UseKeys();  // public: no key needed
  Response r = Raw("/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_NE(r.body.find("<!doctype html>"), std::string::npos);
  EXPECT_EQ(HeaderOf(r, "Cache-Control"), "no-cache");
  EXPECT_FALSE(HeaderOf(r, "ETag").empty());
  ExpectSecurityHeaders(r);
}

TEST_F(ConsoleTest, EveryEmbeddedFileIsServedWithItsContentType) {
  ASSERT_FALSE(ConsoleFiles().empty());
  for (const EmbeddedFile& f : ConsoleFiles()) {
    Response r = Raw("/console/" + std::string(f.name));
    EXPECT_EQ(r.status, 200) << f.name;
    EXPECT_EQ(r.body, f.data) << f.name;
    EXPECT_NE(r.content_type, "application/octet-stream") << f.name;
  }
  EXPECT_EQ(Raw("/console/app.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Raw("/console/style.css").content_type, "text/css; charset=utf-8");
}

TEST_F(ConsoleTest, MatchingETagGets304WithoutBody) {
  Response first = Raw("/console/app.js");
  std::string etag = HeaderOf(first, "ETag");
  ASSERT_EQ(etag.front(), '"');
  Response again = Raw("/console/app.js", etag);
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(HeaderOf(again, "ETag"), etag);
  ExpectSecurityHeaders(again);
  EXPECT_EQ(Raw("/console/app.js", "W/\"other\", " + etag).status, 304);
  EXPECT_EQ(Raw("/console/app.js", "\"stale\"").status, 200);
}

TEST_F(ConsoleTest, UnknownFileIs404JsonError) {
  Response r = Raw("/console/nope.js");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_NE(r.body.find("NOT_FOUND"), std::string::npos);
  ExpectSecurityHeaders(r);
  EXPECT_EQ(Raw("/console/a/b.js").status, 404);  // no nested paths
  EXPECT_EQ(Raw("/console/..%2Fapi.h").status, 404);
}

TEST(ConsoleAssetsTest, ContentTypesAndETagsOfGivenFiles) {
  const EmbeddedFile files[] = {{"x.svg", "<svg/>", "\"e1\""}};
  Request request;
  Response r = ServeConsoleFile(files, "x.svg", request);
  EXPECT_EQ(r.content_type, "image/svg+xml");
  EXPECT_EQ(r.body, "<svg/>");
  request.headers["if-none-match"] = "*";
  EXPECT_EQ(ServeConsoleFile(files, "x.svg", request).status, 304);
  EXPECT_EQ(ContentTypeFor("a.bin"), "application/octet-stream");
  EXPECT_EQ(ContentTypeFor("index.html"), "text/html; charset=utf-8");
}

TEST_F(ConsoleTest, MeWithoutKeysConfiguredIsAdminAndNeedsNoAuth) {
  auto r = Get("/api/v1/me");
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r["auth_required"].as_bool());
  EXPECT_EQ(Str(r["role"]), "admin");
}

TEST_F(ConsoleTest, MeWithKeysNamesTheRoleOfTheKey) {
  UseKeys();
  auto anonymous = Get("/api/v1/me");
  EXPECT_EQ(anonymous.status, 200);
  EXPECT_TRUE(anonymous["auth_required"].as_bool());
  EXPECT_TRUE(anonymous["role"].is_null());
  EXPECT_EQ(Str(Get("/api/v1/me", "admin-key")["role"]), "admin");
  EXPECT_EQ(Str(Get("/api/v1/me", "viewer-key")["role"]), "viewer");
  EXPECT_EQ(Str(Get("/api/v1/me", "worker-key")["role"]), "worker");
  auto wrong = Get("/api/v1/me", "guess");
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.Code(), "UNAUTHORIZED");
}

TEST_F(ConsoleTest, ThroughputStartsEmptyThenHoldsOneIntervalPerSample) {
  auto empty = Get("/api/v1/throughput");
  EXPECT_EQ(empty.status, 200);
  EXPECT_EQ(empty["interval_seconds"].as_int64(), 10);
  EXPECT_TRUE(empty["points"].as_array().empty());

  engine_->RunServicesOnce();  // the baseline (unless the loop took it already)
  Enqueue("q");
  Enqueue("q");
  Enqueue("other");
  clock_.Advance(std::chrono::seconds(10));
  engine_->RunServicesOnce();

  auto q = Get("/api/v1/throughput?queue_name=q");
  ASSERT_EQ(q["points"].as_array().size(), 1u);
  const auto& point = q["points"].as_array()[0].as_object();
  EXPECT_EQ(point.at("enqueued").as_int64(), 2);
  EXPECT_EQ(point.at("completed").as_int64(), 0);
  EXPECT_EQ(point.at("failed").as_int64(), 0);
  EXPECT_EQ(point.at("deadlettered").as_int64(), 0);
  EXPECT_EQ(Str(point.at("at")), "2027-01-15T08:00:10.000Z");
  auto all = Get("/api/v1/throughput");
  EXPECT_EQ(all["points"].as_array()[0].at("enqueued").as_int64(), 3);
  EXPECT_EQ(Get("/api/v1/throughput?queue_name=b%20d").status, 400);
}

TEST_F(ConsoleTest, ThroughputIsForViewersButNotWorkers) {
  UseKeys();
  EXPECT_EQ(Get("/api/v1/throughput", "viewer-key").status, 200);
  EXPECT_EQ(Get("/api/v1/throughput", "worker-key").status, 403);
  EXPECT_EQ(Get("/api/v1/throughput").status, 401);
}

}  // namespace
}  // namespace redrive::api
