// The token exchange over the API (/api/v1/auth/*): login with stored and
// bootstrap keys, access tokens as Bearer credentials (their role and scope
// the key's, refused at once when the key is revoked, when they expire on
// the clock, or when they are forged), reusable and single-use refresh,
// validate, me, logout, the failed-authentication limit, another node, and
// pruning.
#include <gmock/gmock.h>

#include "api/access_token.h"
#include "api/api_test_util.h"
#include "store/store.h"

namespace redrive::api::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ApiTokensTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    clock_.Set(InstantFromMicros(1'700'000'000'000'000));
    UseKeys(AuthFailureLimits{.max_failures = 0});
  }
  void UseKeys(AuthFailureLimits limits, bool single_use_refresh_tokens = false) {
    ApiOptions o;
    o.keys = {{Role::kAdmin, "boot-admin", "root"}, {Role::kViewer, "boot-viewer"}};
    o.clock = &clock_;
    o.auth_failures = limits;
    o.single_use_refresh_tokens = single_use_refresh_tokens;
    Reconfigure(o);
  }
  // A stored key's secret and id.
  std::pair<std::string, std::string> CreateKey(const std::string& body) {
    Reply r = Post("/api/v1/api-keys", body, "boot-admin");
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return {Str(r["key"]), Str(r["id"])};
  }
  Reply Login(const std::string& key) {
    return Post("/api/v1/auth/login", R"({"api_key":")" + key + R"("})");
  }
  Reply Refresh(const std::string& refresh_token) {
    return Post("/api/v1/auth/refresh", R"({"refresh_token":")" + refresh_token + R"("})");
  }
  Reply EnqueueWith(const std::string& credential, const std::string& queue = "q") {
    return Post("/api/v1/jobs", R"({"queue_name":")" + queue + R"(","payload":{}})", credential);
  }
};

TEST_F(ApiTokensTest, LoginAnswersSpooledsShapeAndTheTokenActsAsItsKey) {
  auto [worker, id] = CreateKey(R"({"name":"w","role":"worker","queues":["emails"]})");
  Reply login = Login(worker);
  ASSERT_EQ(login.status, 200) << login.raw.body;
  EXPECT_EQ(Str(login["token_type"]), "Bearer");
  EXPECT_EQ(login["expires_in"], 900);
  EXPECT_EQ(login["refresh_expires_in"], 86400);
  const std::string access = Str(login["access_token"]);
  EXPECT_THAT(Str(login["refresh_token"]), StartsWith("rdr_"));
  EXPECT_TRUE(LooksLikeAccessToken(access)) << access;

  // The worker key's role and queue scope.
  EXPECT_EQ(EnqueueWith(access, "emails").status, 201);
  Reply other_queue = EnqueueWith(access, "reports");
  EXPECT_EQ(other_queue.status, 403);
  EXPECT_THAT(other_queue.raw.body, HasSubstr("emails"));
  EXPECT_EQ(Get("/api/v1/api-keys", access).status, 403);

  Reply me = Get("/api/v1/auth/me", access);
  ASSERT_EQ(me.status, 200) << me.raw.body;
  EXPECT_EQ(Str(me["api_key_id"]), id);
  EXPECT_EQ(Str(me["organization_id"]), "default");
  EXPECT_EQ(Str(me["role"]), "worker");
  EXPECT_EQ(Str(me["credential"]), "access_token");
  EXPECT_EQ(me["queues"].as_array().size(), 1u);
  EXPECT_EQ(Str(me["issued_at"]), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(Str(me["expires_at"]), "2023-11-14T22:28:20.000Z");
  // The same with the key itself: no token times.
  Reply by_key = Get("/api/v1/auth/me", worker);
  EXPECT_EQ(Str(by_key["credential"]), "api_key");
  EXPECT_TRUE(by_key["issued_at"].is_null());
}

TEST_F(ApiTokensTest, AccessTokenExpiresOnTheClock) {
  Reply login = Login("boot-admin");
  const std::string access = Str(login["access_token"]);
  clock_.Advance(std::chrono::seconds(899));
  EXPECT_EQ(Get("/api/v1/queues", access).status, 200);
  clock_.Advance(std::chrono::seconds(1));
  Reply expired = Get("/api/v1/queues", access);
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(expired.Code(), "UNAUTHORIZED");
  EXPECT_THAT(expired.raw.body, HasSubstr("expired"));
}

// Spooled's SDK refreshes with its login's refresh token every time (it
// never reads one from a refresh answer): the token answers each refresh,
// with the time it has left, until it expires or is logged out.
TEST_F(ApiTokensTest, ARefreshTokenIsReusedUntilItEnds) {
  auto [viewer, id] = CreateKey(R"({"name":"dash","role":"viewer"})");
  Reply login = Login(viewer);
  const std::string token = Str(login["refresh_token"]);
  for (int i = 1; i <= 3; ++i) {
    clock_.Advance(std::chrono::minutes(20));  // the access token expired meanwhile
    Reply refreshed = Refresh(token);
    ASSERT_EQ(refreshed.status, 200) << "refresh " << i << ": " << refreshed.raw.body;
    EXPECT_EQ(Str(refreshed["refresh_token"]), token);
    EXPECT_EQ(refreshed["refresh_expires_in"], 86400 - i * 20 * 60);
    EXPECT_EQ(Get("/api/v1/queues", Str(refreshed["access_token"])).status, 200);
  }
  const std::string access = Str(Refresh(token)["access_token"]);
  ASSERT_EQ(Post("/api/v1/auth/logout", R"({"refresh_token":")" + token + R"("})", access).status,
            204);
  Reply after = Refresh(token);
  EXPECT_EQ(after.status, 401);
  EXPECT_THAT(after.raw.body, HasSubstr("logged out"));
  // Its expiry counts from the login, however often it was used.
  Reply again = Login(viewer);
  clock_.Advance(std::chrono::hours(24));
  EXPECT_THAT(Refresh(Str(again["refresh_token"])).raw.body, HasSubstr("expired"));
}

TEST_F(ApiTokensTest, SingleUseRefreshAnswersANewPairAndEndsTheOldToken) {
  UseKeys(AuthFailureLimits{.max_failures = 0}, /*single_use_refresh_tokens=*/true);
  auto [viewer, id] = CreateKey(R"({"name":"dash","role":"viewer"})");
  Reply login = Login(viewer);
  const std::string first = Str(login["refresh_token"]);
  clock_.Advance(std::chrono::minutes(20));  // the access token expired meanwhile
  Reply refreshed = Refresh(first);
  ASSERT_EQ(refreshed.status, 200) << refreshed.raw.body;
  EXPECT_EQ(Str(refreshed["token_type"]), "Bearer");
  EXPECT_EQ(refreshed["expires_in"], 900);
  const std::string second = Str(refreshed["refresh_token"]);
  EXPECT_NE(second, first);
  EXPECT_EQ(Get("/api/v1/queues", Str(refreshed["access_token"])).status, 200);

  Reply reused = Refresh(first);
  EXPECT_EQ(reused.status, 401);
  EXPECT_EQ(reused.Code(), "UNAUTHORIZED");
  EXPECT_THAT(reused.raw.body, HasSubstr("already used"));
  EXPECT_EQ(Refresh(second).status, 200);
  EXPECT_EQ(Refresh("rdr_never-issued").status, 401);
}

TEST_F(ApiTokensTest, RefreshTokenExpires) {
  Reply login = Login("boot-admin");
  clock_.Advance(std::chrono::hours(24));
  Reply r = Refresh(Str(login["refresh_token"]));
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.raw.body, HasSubstr("expired"));
}

TEST_F(ApiTokensTest, RevokingTheKeyStopsItsTokensAtOnce) {
  auto [admin, id] = CreateKey(R"({"name":"ops"})");
  Reply login = Login(admin);
  const std::string access = Str(login["access_token"]);
  ASSERT_EQ(Get("/api/v1/queues", access).status, 200);
  ASSERT_EQ(Do("DELETE", "/api/v1/api-keys/" + id, "", "boot-admin").status, 204);
  Reply refused = Get("/api/v1/queues", access);
  EXPECT_EQ(refused.status, 401);
  EXPECT_THAT(refused.raw.body, HasSubstr("revoked"));
  Reply refresh = Refresh(Str(login["refresh_token"]));
  EXPECT_EQ(refresh.status, 401);
  EXPECT_THAT(refresh.raw.body, HasSubstr("revoked"));
  // Reinstating the key does not bring its ended refresh tokens back.
  ASSERT_EQ(Do("PUT", "/api/v1/api-keys/" + id, R"({"is_active":true})", "boot-admin").status, 200);
  EXPECT_EQ(Get("/api/v1/queues", access).status, 200);
  EXPECT_EQ(Refresh(Str(login["refresh_token"])).status, 401);
  EXPECT_EQ(Login(admin).status, 200);
}

TEST_F(ApiTokensTest, ExpiredKeyCannotLogInAndItsTokensStop) {
  auto [key, id] = CreateKey(R"({"name":"brief","expires_at":"2023-11-14T22:43:20Z"})");
  Reply login = Login(key);
  ASSERT_EQ(login.status, 200);
  clock_.Advance(std::chrono::minutes(29));
  Reply r = Refresh(Str(login["refresh_token"]));
  ASSERT_EQ(r.status, 200);
  clock_.Advance(std::chrono::minutes(1));  // the key's expiry
  EXPECT_EQ(Get("/api/v1/queues", Str(r["access_token"])).status, 401);
  EXPECT_EQ(Refresh(Str(r["refresh_token"])).status, 401);
  EXPECT_EQ(Login(key).status, 401);
}

TEST_F(ApiTokensTest, BootstrapKeysLogInAndLoseTheirTokensWhenRemoved) {
  Reply login = Login("boot-admin");
  ASSERT_EQ(login.status, 200) << login.raw.body;
  const std::string access = Str(login["access_token"]);
  Reply me = Get("/api/v1/auth/me", access);
  ASSERT_EQ(me.status, 200);
  const std::string key_id = Str(me["api_key_id"]);
  EXPECT_THAT(key_id, StartsWith("bootstrap:"));
  EXPECT_EQ(key_id.size(), 10u + 32u);
  EXPECT_EQ(Str(me["name"]), "root");
  // The key presented itself names the same id.
  EXPECT_EQ(Str(Get("/api/v1/auth/me", "boot-admin")["api_key_id"]), key_id);
  EXPECT_EQ(Get("/api/v1/api-keys", access).status, 200);  // admin

  // The key is removed from the configuration (a restart with other keys).
  ApiOptions o;
  o.keys = {{Role::kViewer, "boot-viewer"}};
  o.clock = &clock_;
  Reconfigure(o);
  Reply refused = Get("/api/v1/queues", access);
  EXPECT_EQ(refused.status, 401);
  EXPECT_THAT(refused.raw.body, HasSubstr("no longer configured"));
  EXPECT_EQ(Refresh(Str(login["refresh_token"])).status, 401);
}

// Status of GET /api/v1/queues on `api` with `token`.
int QueuesStatus(Api& api, const std::string& token) {
  Request r;
  r.method = "GET";
  r.target = "/api/v1/queues";
  r.headers["authorization"] = "Bearer " + token;
  std::promise<Response> p;
  std::future<Response> f = p.get_future();
  api.Handle(r, [&p](Response resp) { p.set_value(std::move(resp)); });
  return f.get().status;
}

TEST_F(ApiTokensTest, AnotherNodeAcceptsTokensOnceItReadTheSecret) {
  Api other(*engine_, options_);  // started before any token exists
  const std::string access = Str(Login("boot-admin")["access_token"]);
  EXPECT_EQ(QueuesStatus(other, access), 401);  // the secret not read yet
  ASSERT_TRUE(other.RefreshStoredKeys().ok());  // its key refresh, every second
  EXPECT_EQ(QueuesStatus(other, access), 200);
  // A node started afterwards (or this one restarted) reads it at once.
  Api restarted(*engine_, options_);
  EXPECT_EQ(QueuesStatus(restarted, access), 200);
}

TEST_F(ApiTokensTest, BadTokensAndBodiesAreClear4xxNever5xx) {
  const std::string access = Str(Login("boot-admin")["access_token"]);
  std::string forged = access;
  char& c = forged[forged.size() - 5];  // inside the signature
  c = c == 'A' ? 'B' : 'A';
  AccessClaims claims;
  claims.api_key_id = "anything";
  claims.role = "admin";
  claims.issued_at = clock_.Now();
  claims.expires_at = clock_.Now() + std::chrono::hours(1);
  const std::string other_server = SignAccessToken(claims, std::string(64, 'x'));
  const std::pair<std::string, std::string> cases[] = {
      {"a.b.c", "malformed"},
      {"eyJhbGciOiJub25lIn0.e30.c2ln", "HS256"},
      {forged, "signature"},
      {other_server, "signature"},
      {access.substr(0, access.rfind('.')) + ".", "unknown API key"},
  };
  for (const auto& [token, why] : cases) {
    Reply r = Get("/api/v1/queues", token);
    EXPECT_EQ(r.status, 401) << token;
    EXPECT_EQ(r.Code(), "UNAUTHORIZED") << r.raw.body;
    EXPECT_THAT(r.raw.body, HasSubstr(why)) << token;
  }

  Reply missing = Post("/api/v1/auth/login", "{}");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.Field(), "api_key");
  Reply unknown = Post("/api/v1/auth/login", R"({"api_key":"boot-admin","password":"x"})");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.Field(), "password");
  EXPECT_EQ(Post("/api/v1/auth/login", R"({"api_key":7})").status, 400);
  EXPECT_EQ(Post("/api/v1/auth/login", "[1]").status, 400);
  EXPECT_EQ(Post("/api/v1/auth/refresh", R"({"refresh_token":""})").Field(), "refresh_token");
  EXPECT_EQ(Post("/api/v1/auth/validate", R"({})").Field(), "token");
  EXPECT_EQ(Post("/api/v1/auth/logout", R"({"refresh_token":1})", access).status, 400);
  Reply wrong_key = Login("not-a-key");
  EXPECT_EQ(wrong_key.status, 401);
  EXPECT_EQ(wrong_key.Code(), "UNAUTHORIZED");
  // A token is not a key to log in with.
  EXPECT_EQ(Login(access).status, 401);
}

TEST_F(ApiTokensTest, ValidateAnswersTheClaimsOrWhyNot) {
  auto [worker, id] = CreateKey(R"({"name":"w","role":"worker","queues":["emails"]})");
  const std::string access = Str(Login(worker)["access_token"]);
  Reply ok = Post("/api/v1/auth/validate", R"({"token":")" + access + R"("})");
  ASSERT_EQ(ok.status, 200) << ok.raw.body;
  EXPECT_EQ(ok["valid"], true);
  const auto& c = ok["claims"].as_object();
  EXPECT_EQ(Str(c.at("api_key_id")), id);
  EXPECT_EQ(Str(c.at("token_type")), "access");
  EXPECT_EQ(Str(c.at("role")), "worker");
  EXPECT_EQ(Str(c.at("organization_id")), "default");  // Spooled's SDK's name for org_id
  EXPECT_EQ(c.at("exp").as_int64() - c.at("iat").as_int64(), 900);

  Reply bad = Post("/api/v1/auth/validate", R"({"token":"rdk_a-key-not-a-token"})");
  ASSERT_EQ(bad.status, 200);
  EXPECT_EQ(bad["valid"], false);
  EXPECT_THAT(Str(bad["error"]), HasSubstr("not an access token"));
  clock_.Advance(std::chrono::minutes(15));
  Reply expired = Post("/api/v1/auth/validate", R"({"token":")" + access + R"("})");
  EXPECT_EQ(expired["valid"], false);
  EXPECT_THAT(Str(expired["message"]), HasSubstr("expired"));
}

TEST_F(ApiTokensTest, LogoutEndsOneRefreshTokenOrAllOfTheKey) {
  auto [key, id] = CreateKey(R"({"name":"ops"})");
  Reply a = Login(key);
  Reply b = Login(key);
  Reply c = Login(key);
  const std::string access = Str(a["access_token"]);
  EXPECT_EQ(Post("/api/v1/auth/logout", R"({"refresh_token":")" + Str(a["refresh_token"]) + R"("})",
                 access)
                .status,
            204);
  Reply after = Refresh(Str(a["refresh_token"]));
  EXPECT_EQ(after.status, 401);
  EXPECT_THAT(after.raw.body, HasSubstr("logged out"));
  // Logging out twice is harmless.
  EXPECT_EQ(Post("/api/v1/auth/logout", R"({"refresh_token":")" + Str(a["refresh_token"]) + R"("})",
                 access)
                .status,
            204);
  // Another key's refresh token is not this key's to end.
  Reply admin = Login("boot-admin");
  Reply foreign = Post("/api/v1/auth/logout",
                       R"({"refresh_token":")" + Str(admin["refresh_token"]) + R"("})", access);
  EXPECT_EQ(foreign.status, 403);
  EXPECT_EQ(Refresh(Str(admin["refresh_token"])).status, 200);
  // No body: every refresh token of the key.
  EXPECT_EQ(Post("/api/v1/auth/logout", "", access).status, 204);
  EXPECT_EQ(Refresh(Str(b["refresh_token"])).status, 401);
  EXPECT_EQ(Refresh(Str(c["refresh_token"])).status, 401);
  // Its access tokens last until they expire (they are not stored).
  EXPECT_EQ(Get("/api/v1/queues", access).status, 200);
}

TEST_F(ApiTokensTest, FailedTokensCountInTheAuthFailureLimit) {
  UseKeys(AuthFailureLimits{.max_failures = 3, .window = std::chrono::seconds(60)});
  EXPECT_EQ(Get("/api/v1/queues", "x.y.z").status, 401);
  EXPECT_EQ(Refresh("rdr_guess").status, 401);
  EXPECT_EQ(Login("guess").status, 401);
  Reply limited = Login("boot-admin");  // right key, but over the budget
  EXPECT_EQ(limited.status, 429);
  EXPECT_FALSE(limited.raw.headers.empty());
  EXPECT_EQ(Refresh("rdr_guess").status, 429);
  EXPECT_EQ(Post("/api/v1/auth/validate", R"({"token":"x.y.z"})").status, 429);
  EXPECT_EQ(Get("/api/v1/queues", "boot-admin").status, 429);
  clock_.Advance(std::chrono::seconds(60));
  EXPECT_EQ(Login("boot-admin").status, 200);
}

TEST_F(ApiTokensTest, EndedRefreshTokensArePrunedADayLater) {
  UseKeys(AuthFailureLimits{.max_failures = 0}, /*single_use_refresh_tokens=*/true);
  Reply login = Login("boot-admin");
  const std::string key_id = Str(Get("/api/v1/auth/me", "boot-admin")["api_key_id"]);
  Reply refreshed = Refresh(Str(login["refresh_token"]));
  ASSERT_EQ(refreshed.status, 200);
  auto count = [&] { return (*store_->BeginRead())->ListRefreshTokens(key_id)->size(); };
  EXPECT_EQ(count(), 2u);
  clock_.Advance(std::chrono::hours(23));
  engine_->RunServicesOnce();
  EXPECT_EQ(count(), 2u);  // the used one is kept a day: its reuse says why
  clock_.Advance(std::chrono::hours(2));
  engine_->RunServicesOnce();
  EXPECT_EQ(count(), 1u);
  clock_.Advance(std::chrono::hours(24));  // the live one expired a day ago too
  engine_->RunServicesOnce();
  EXPECT_EQ(count(), 0u);
}

TEST_F(ApiTokensTest, WithoutKeysThereIsNothingToLogInWith) {
  Reconfigure(ApiOptions{});
  Reply r = Login("anything");
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.raw.body, HasSubstr("no API keys"));
  Reply me = Get("/api/v1/auth/me");
  EXPECT_EQ(me.status, 200);
  EXPECT_EQ(Str(me["role"]), "admin");
  EXPECT_TRUE(me["api_key_id"].is_null());
  EXPECT_EQ(Post("/api/v1/auth/logout", "").status, 204);
}

}  // namespace
}  // namespace redrive::api::testing
