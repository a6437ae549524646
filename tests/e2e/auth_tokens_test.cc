// The token exchange against the real binary: a stored key logs in, its
// access token is a Bearer credential, a refresh answers a new pair and the
// old refresh token is refused, the access token survives a restart (the
// signing secret is the store's), and revoking the key refuses its tokens.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;

constexpr char kAdmin[] = "bootstrap-admin-key";

JsonResponse As(const ServerProcess& server, const std::string& credential, std::string_view method,
                const std::string& path, const json::value& body = nullptr) {
  HttpClient c = server.Client();
  if (!credential.empty()) c.set_bearer_token(credential);
  if (body.is_null()) return c.JsonRequest(method, "/api/v1" + path);
  return c.JsonRequest(method, "/api/v1" + path, body);
}

std::string Str(const json::value& v) { return std::string(v.as_string()); }

// With single-use refresh tokens (the default reuses them: the Spooled SDK
// test in tests/spooled covers that through the binary).
TEST(AuthTokensE2eTest, LoginSingleUseRefreshRevoke) {
  ServerOptions o;
  o.env = {{"REDRIVE_API_KEYS", std::string("admin@root:") + kAdmin},
           {"REDRIVE_SINGLE_USE_REFRESH_TOKENS", "true"}};
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  auto created = As(server, kAdmin, "POST", "/api-keys",
                    json::object{{"name", "mailer"}, {"queues", json::array{"emails"}}});
  ASSERT_EQ(created.status, 201) << json::serialize(created.body);
  const std::string key = Str(created.body.at("key"));
  const std::string id = Str(created.body.at("id"));

  auto login = As(server, "", "POST", "/auth/login", json::object{{"api_key", key}});
  ASSERT_EQ(login.status, 200) << json::serialize(login.body);
  EXPECT_EQ(Str(login.body.at("token_type")), "Bearer");
  EXPECT_EQ(login.body.at("expires_in"), 900);
  const std::string access = Str(login.body.at("access_token"));
  const std::string refresh = Str(login.body.at("refresh_token"));

  const auto job = json::object{{"queue_name", "emails"}, {"payload", json::object{}}};
  EXPECT_EQ(As(server, access, "POST", "/jobs", job).status, 201);
  auto me = As(server, access, "GET", "/auth/me");
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(Str(me.body.at("api_key_id")), id);

  auto refreshed =
      As(server, "", "POST", "/auth/refresh", json::object{{"refresh_token", refresh}});
  ASSERT_EQ(refreshed.status, 200) << json::serialize(refreshed.body);
  const std::string access2 = Str(refreshed.body.at("access_token"));
  const std::string refresh2 = Str(refreshed.body.at("refresh_token"));
  EXPECT_EQ(As(server, access2, "POST", "/jobs", job).status, 201);
  auto reused = As(server, "", "POST", "/auth/refresh", json::object{{"refresh_token", refresh}});
  EXPECT_EQ(reused.status, 401);
  EXPECT_EQ(Str(reused.body.at("code")), "UNAUTHORIZED");

  // The secret is the store's: the token still verifies after a restart.
  ASSERT_TRUE(server.Restart());
  EXPECT_EQ(As(server, access2, "POST", "/jobs", job).status, 201);

  ASSERT_EQ(As(server, kAdmin, "DELETE", "/api-keys/" + id).status, 204);
  auto refused = As(server, access2, "POST", "/jobs", job);
  EXPECT_EQ(refused.status, 401);
  EXPECT_NE(json::serialize(refused.body).find("revoked"), std::string::npos)
      << json::serialize(refused.body);
  EXPECT_EQ(
      As(server, "", "POST", "/auth/refresh", json::object{{"refresh_token", refresh2}}).status,
      401);
  // Malformed and forged tokens are 401s, never 5xx.
  EXPECT_EQ(As(server, "not.a.token", "GET", "/queues").status, 401);
  EXPECT_EQ(As(server, access2 + "x", "GET", "/queues").status, 401);
}

}  // namespace
}  // namespace redrive::e2e
