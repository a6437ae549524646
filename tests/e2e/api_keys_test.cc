// Stored API keys against the real binary: created through the API, used as
// a Bearer, kept across a restart, revoked; and, on PostgreSQL, a revoke on
// one node refused by another within its refresh.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr char kAdmin[] = "bootstrap-admin-key";

JsonResponse As(const ServerProcess& server, const std::string& key, std::string_view method,
                const std::string& path, const json::value& body = nullptr) {
  HttpClient c = server.Client();
  c.set_bearer_token(key);
  if (body.is_null()) return c.JsonRequest(method, "/api/v1" + path);
  return c.JsonRequest(method, "/api/v1" + path, body);
}

std::string Str(const json::value& v) { return std::string(v.as_string()); }

ServerOptions WithBootstrapKey(std::string store = "") {
  ServerOptions o;
  o.store = std::move(store);
  o.env = {{"REDRIVE_API_KEYS", std::string("admin@root:") + kAdmin}};
  return o;
}

TEST(ApiKeysE2eTest, StoredKeyWorksSurvivesRestartAndIsRevoked) {
  ServerProcess server(WithBootstrapKey());
  ASSERT_TRUE(server.Start());
  auto created = As(server, kAdmin, "POST", "/api-keys",
                    json::object{{"name", "mailer"}, {"queues", json::array{"emails"}}});
  ASSERT_EQ(created.status, 201) << json::serialize(created.body);
  const std::string secret = Str(created.body.at("key"));
  const std::string id = Str(created.body.at("id"));
  EXPECT_EQ(Str(created.body.at("role")), "worker");

  auto job = json::object{{"queue_name", "emails"}, {"payload", json::object{}}};
  EXPECT_EQ(As(server, secret, "POST", "/jobs", job).status, 201);
  job["queue_name"] = "reports";
  EXPECT_EQ(As(server, secret, "POST", "/jobs", job).status, 403);
  EXPECT_EQ(As(server, secret, "GET", "/api-keys").status, 403);

  ASSERT_TRUE(server.Restart());
  job["queue_name"] = "emails";
  EXPECT_EQ(As(server, secret, "POST", "/jobs", job).status, 201);
  auto listed = As(server, kAdmin, "GET", "/api-keys");
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(listed.body.as_array().size(), 1u);
  EXPECT_FALSE(listed.body.as_array()[0].as_object().contains("key"));

  EXPECT_EQ(As(server, kAdmin, "DELETE", "/api-keys/" + id).status, 204);
  EXPECT_EQ(As(server, secret, "POST", "/jobs", job).status, 401);
  ASSERT_TRUE(server.Restart());
  EXPECT_EQ(As(server, secret, "POST", "/jobs", job).status, 401);
  EXPECT_EQ(As(server, kAdmin, "GET", "/api-keys/" + id).body.at("is_active"), false);
}

TEST(ApiKeysE2eTest, RevokeOnOneNodeReachesAnotherWithinSeconds) {
  if (!TestingOnPostgres()) GTEST_SKIP() << "several nodes share a PostgreSQL database only";
  const std::string url = NewPostgresStoreUrl();
  ServerProcess a(WithBootstrapKey(url));
  ServerProcess b(WithBootstrapKey(url));
  ASSERT_TRUE(a.Start());
  ASSERT_TRUE(b.Start());
  auto created = As(a, kAdmin, "POST", "/api-keys", json::object{{"name", "shared"}});
  ASSERT_EQ(created.status, 201);
  const std::string secret = Str(created.body.at("key"));
  // A key created on a: b learns it within its refresh (1 s).
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  auto wait_for_status = [&](int want) {
    int got = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      got = As(b, secret, "GET", "/queues").status;
      if (got == want) return got;
      // Not faster: each 401 counts against the address's failure budget (10).
      std::this_thread::sleep_for(300ms);
    }
    return got;
  };
  EXPECT_EQ(wait_for_status(200), 200);
  const auto revoked_at = std::chrono::steady_clock::now();
  EXPECT_EQ(As(a, kAdmin, "DELETE", "/api-keys/" + Str(created.body.at("id"))).status, 204);
  EXPECT_EQ(As(a, secret, "GET", "/queues").status, 401);  // at once on a
  EXPECT_EQ(wait_for_status(401), 401);
  EXPECT_LT(std::chrono::steady_clock::now() - revoked_at, 5s);
}

}  // namespace
}  // namespace redrive::e2e
