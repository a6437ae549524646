#include "api/router.h"

#include <gtest/gtest.h>

#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/routes.h"

namespace redrive::api {
namespace {

class RouterTest : public ::testing::Test {
 protected:
  RouteMatch Match(const std::string& method, const std::string& target) {
    Result<Target> t = ParseTarget(target);
    EXPECT_TRUE(t.ok()) << target;
    return router_.Match(method, t->segments);
  }
  Router router_{AllRoutes()};
};

TEST_F(RouterTest, LiteralSegmentsWinOverParameters) {
  EXPECT_EQ(Match("POST", "/api/v1/jobs/claim").route->handler, &HandleClaim);
  EXPECT_EQ(Match("POST", "/api/v1/jobs/ack").route->handler, &HandleAck);
  EXPECT_EQ(Match("POST", "/api/v1/jobs/bulk").route->handler, &HandleEnqueueBulk);
  EXPECT_EQ(Match("GET", "/api/v1/jobs/status?ids=a").route->handler, &HandleJobStatuses);
  EXPECT_EQ(Match("GET", "/api/v1/jobs/stats").route->handler, &HandleJobStats);
  EXPECT_EQ(Match("GET", "/api/v1/jobs/dlq").route->handler, &HandleListDlq);
  EXPECT_EQ(Match("POST", "/api/v1/jobs/dlq/retry").route->handler, &HandleDlqRetry);
  EXPECT_EQ(Match("POST", "/api/v1/jobs/dlq/purge").route->handler, &HandleDlqPurge);
  // Not the history of a job named "dlq", nor the job "summary".
  EXPECT_EQ(Match("GET", "/api/v1/jobs/dlq/summary").route->handler, &HandleDlqSummary);
  EXPECT_EQ(Match("GET", "/api/v1/jobs/summary").route->handler, &HandleGetJob);
}

TEST_F(RouterTest, ParametersAreCaptured) {
  RouteMatch m = Match("POST", "/api/v1/jobs/abc-123/complete");
  ASSERT_EQ(m.kind, RouteMatch::Kind::kFound);
  EXPECT_EQ(m.route->handler, &HandleComplete);
  EXPECT_EQ(m.params.at("id"), "abc-123");
  m = Match("PUT", "/api/v1/queues/emails.v2/config");
  ASSERT_EQ(m.kind, RouteMatch::Kind::kFound);
  EXPECT_EQ(m.params.at("name"), "emails.v2");
  EXPECT_EQ(Match("GET", "/api/v1/jobs/x").route->handler, &HandleGetJob);
  EXPECT_EQ(Match("DELETE", "/api/v1/jobs/x").route->handler, &HandleCancel);
}

TEST_F(RouterTest, ParametersArePercentDecoded) {
  RouteMatch m = Match("GET", "/api/v1/queues/a%2Fb");
  ASSERT_EQ(m.kind, RouteMatch::Kind::kFound);
  EXPECT_EQ(m.params.at("name"), "a/b");  // one segment, not two
}

TEST_F(RouterTest, UnknownPathIsNotFound) {
  EXPECT_EQ(Match("GET", "/api/v1/nope").kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(Match("GET", "/api/v2/jobs").kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(Match("GET", "/metricz").kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(Match("GET", "/api/v1/jobs/a/b/c").kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(Match("GET", "/console").kind, RouteMatch::Kind::kNotFound);  // "/" is the console
}

TEST_F(RouterTest, WrongMethodListsAllowedOnes) {
  RouteMatch m = Match("PATCH", "/api/v1/jobs/x");
  EXPECT_EQ(m.kind, RouteMatch::Kind::kMethodNotAllowed);
  EXPECT_EQ(m.allow, "GET, HEAD, DELETE");
  // /jobs/claim is a literal route: GET on it is 405, not "job claim".
  m = Match("GET", "/api/v1/jobs/claim");
  EXPECT_EQ(m.kind, RouteMatch::Kind::kMethodNotAllowed);
  EXPECT_EQ(m.allow, "POST");
  m = Match("DELETE", "/api/v1/jobs");
  EXPECT_EQ(m.allow, "POST, GET, HEAD");
}

TEST_F(RouterTest, HeadMatchesEveryGetRoute) {
  for (auto [path, handler] :
       {std::pair{"/health", &HandleHealth}, std::pair{"/api/v1/jobs/x", &HandleGetJob},
        std::pair{"/api/v1/jobs", &HandleListJobs}}) {
    RouteMatch m = Match("HEAD", path);
    ASSERT_EQ(m.kind, RouteMatch::Kind::kFound) << path;
    EXPECT_EQ(m.route->handler, handler) << path;
  }
  RouteMatch m = Match("HEAD", "/api/v1/jobs/claim");  // a POST-only route
  EXPECT_EQ(m.kind, RouteMatch::Kind::kMethodNotAllowed);
  EXPECT_EQ(m.allow, "POST");
}

TEST_F(RouterTest, TrailingSlashIsIgnored) {
  EXPECT_EQ(Match("GET", "/api/v1/jobs/").route->handler, &HandleListJobs);
  EXPECT_EQ(Match("GET", "/health/").route->handler, &HandleHealth);
}

TEST(RouterStandaloneTest, SpecificityIsPositional) {
  Router router({{"GET", "/a/{x}/c", 0, HandleHealth}, {"GET", "/a/b/{y}", 0, HandleHealthLive}});
  RouteMatch m = router.Match("GET", {"a", "b", "c"});
  ASSERT_EQ(m.kind, RouteMatch::Kind::kFound);
  EXPECT_EQ(m.route->handler, &HandleHealthLive);
  EXPECT_EQ(m.params.at("y"), "c");
}

}  // namespace
}  // namespace redrive::api
