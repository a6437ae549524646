// `redrive auth whoami|token|refresh|validate|logout` against a real server
// with a bootstrap admin key and a stored worker key: the access token
// printed alone works as the Bearer, a refresh token is reused until it is
// logged out, and an altered token is reported not valid (exit 1).
#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CliAuthTest, TokenWhoamiRefreshValidateLogout) {
  ServerOptions o;
  o.env = {{"REDRIVE_API_KEYS", "admin:cli-auth-admin"}};
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  auto cli = [&](std::vector<std::string> args, const std::string& key) {
    args.insert(args.begin(), {"--server", server.base_url()});
    if (!key.empty()) args.insert(args.begin(), {"--api-key", key});
    return RunRedrive(args);
  };

  auto created = cli({"keys", "create", "mailer", "--queue", "emails", "--json"}, "cli-auth-admin");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string worker_key(ParseJson(created.out).at("key").as_string());

  // The key as the credential.
  auto by_key = cli({"auth", "whoami"}, worker_key);
  ASSERT_EQ(by_key.exit_code, 0) << by_key.err;
  EXPECT_THAT(by_key.out, HasSubstr("worker key mailer"));
  EXPECT_THAT(by_key.out, HasSubstr("emails"));
  EXPECT_THAT(by_key.out, HasSubstr("by API key"));

  // `auth token` prints the access token alone; it then works as --api-key.
  auto token = cli({"auth", "token"}, worker_key);
  ASSERT_EQ(token.exit_code, 0) << token.err;
  const std::string access = token.out.substr(0, token.out.find('\n'));
  EXPECT_THAT(access, StartsWith("eyJ"));
  auto by_token = cli({"auth", "whoami", "--json"}, access);
  ASSERT_EQ(by_token.exit_code, 0) << by_token.err;
  const json::value me = ParseJson(by_token.out);
  EXPECT_EQ(me.at("credential"), "access_token");
  EXPECT_EQ(me.at("role"), "worker");
  EXPECT_FALSE(me.at("expires_at").is_null());
  EXPECT_EQ(cli({"enqueue", "emails", "{}"}, access).exit_code, 0);

  auto valid = cli({"auth", "validate", access}, "");
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_THAT(valid.out, HasSubstr("valid: worker token"));
  auto altered = cli({"auth", "validate", access + "x"}, "");
  EXPECT_EQ(altered.exit_code, 1);
  EXPECT_THAT(altered.out, HasSubstr("not valid"));

  // A refresh token is reused (as Spooled's SDK needs): each refresh answers
  // it again with a new access token.
  auto pair = cli({"auth", "token", "--json"}, worker_key);
  ASSERT_EQ(pair.exit_code, 0) << pair.err;
  const std::string refresh_token(ParseJson(pair.out).at("refresh_token").as_string());
  EXPECT_EQ(ParseJson(pair.out).at("token_type"), "Bearer");
  auto next = cli({"auth", "refresh", refresh_token, "--json"}, "");
  ASSERT_EQ(next.exit_code, 0) << next.err;
  const std::string next_refresh(ParseJson(next.out).at("refresh_token").as_string());
  EXPECT_EQ(next_refresh, refresh_token);
  auto again = cli({"auth", "refresh", refresh_token}, "");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, StartsWith("eyJ"));

  // Logout ends the refresh token it names.
  auto logout = cli({"auth", "logout", next_refresh}, worker_key);
  ASSERT_EQ(logout.exit_code, 0) << logout.err;
  auto ended = cli({"auth", "refresh", next_refresh}, "");
  EXPECT_EQ(ended.exit_code, 1);
  EXPECT_THAT(ended.err, HasSubstr("logged out"));

  // Without a key there is nothing to log in with: a usage error, no request.
  auto keyless = cli({"auth", "token"}, "");
  EXPECT_EQ(keyless.exit_code, 2);
  EXPECT_THAT(keyless.err, HasSubstr("--api-key"));
}

}  // namespace
}  // namespace redrive::e2e
