// `redrive audit list` and `--why` against a real server: a change made with
// a reason is listed with it, filtered by target, as a table and as JSON.
#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;

class CliAuditTest : public CliTest {};

TEST_F(CliAuditTest, WhyIsKeptAndListed) {
  const std::string queue = NewQueue("cli-audit");
  ASSERT_EQ(Cli({"--why", "PSP outage, INC-4411 – café", "queues", "pause", queue}).exit_code, 0);
  // queues pause --reason is the audit reason too when --why is not given.
  ASSERT_EQ(Cli({"queues", "resume", queue}).exit_code, 0);
  ASSERT_EQ(Cli({"queues", "pause", queue, "--reason", "maintenance"}).exit_code, 0);

  auto table = Cli({"audit", "list", "--target", "queue:" + queue});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("queue.pause"));
  EXPECT_THAT(table.out, HasSubstr("PSP outage, INC-4411 – café"));
  EXPECT_THAT(table.out, HasSubstr("maintenance"));
  EXPECT_THAT(table.out, HasSubstr("local"));

  auto json = Cli({"audit", "list", "--target", "queue:" + queue, "--action", "queue.resume",
                   "--since", "1h", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto entries = ParseJson(json.out).at("entries").as_array();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].at("action"), "queue.resume");
  EXPECT_TRUE(entries[0].at("reason").is_null());

  auto paged = Cli({"audit", "list", "--target", "queue:" + queue, "--limit", "1"});
  EXPECT_THAT(paged.out, HasSubstr("more: redrive audit list --cursor "));
  EXPECT_EQ(Cli({"audit", "list", "--since", "soon"}).exit_code, 2);
}

}  // namespace
}  // namespace redrive::e2e
