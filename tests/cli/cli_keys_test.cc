// `redrive keys list|create|revoke` against a real server with a bootstrap
// admin key: the secret printed once, the key listed without it, and a
// revoked key refused.
#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CliKeysTest, CreateListRevoke) {
  ServerOptions o;
  o.env = {{"REDRIVE_API_KEYS", "admin:cli-boot-admin"}};
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  auto cli = [&](std::vector<std::string> args, const std::string& key = "cli-boot-admin") {
    args.insert(args.begin(), {"--server", server.base_url(), "--api-key", key});
    return RunRedrive(args);
  };

  auto created = cli({"keys", "create", "mailer", "--queue", "emails", "--json"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const json::value key = ParseJson(created.out);
  const std::string secret(key.at("key").as_string());
  const std::string id(key.at("id").as_string());
  EXPECT_EQ(key.at("role"), "worker");

  auto table = cli({"keys", "list"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("mailer"));
  EXPECT_THAT(table.out, HasSubstr("emails"));
  EXPECT_THAT(table.out, HasSubstr("active"));
  EXPECT_THAT(table.out, Not(HasSubstr(secret)));

  // The new key works (a worker key enqueues into its queue) ...
  EXPECT_EQ(cli({"enqueue", "emails", "{}"}, secret).exit_code, 0);
  // ... and may not manage keys.
  EXPECT_NE(cli({"keys", "list"}, secret).exit_code, 0);

  auto revoked = cli({"keys", "revoke", id});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_THAT(cli({"keys", "list"}).out, HasSubstr("revoked"));
  auto refused = cli({"enqueue", "emails", "{}"}, secret);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("revoked"));

  auto human = cli({"keys", "create", "dash", "--role", "viewer"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("shown once"));
  EXPECT_THAT(human.out, HasSubstr("sk_rdk_"));
}

}  // namespace
}  // namespace redrive::e2e
