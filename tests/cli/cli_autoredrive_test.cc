// `redrive dlq autoredrive` against a real server (through the SDK): set
// creates a queue's policy, show and list print its live phase, set keeps
// what it is not told, off switches it off, delete removes it, and a bad
// value is the server's VALIDATION_ERROR naming the field.
#include "cli/support/cli_fixture.h"
#include "core/error_fingerprint.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;

class CliAutoredriveTest : public CliTest {};

TEST_F(CliAutoredriveTest, SetShowListOffAndDelete) {
  const std::string queue = NewQueue("heal");
  MakeDeadJob(queue, "gateway timeout after 30s", true);
  const std::string fp = ErrorFingerprint("gateway timeout after 30s");

  auto missing = Cli({"dlq", "autoredrive", "show", queue});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("NOT_FOUND"));
  auto no_class = Cli({"dlq", "autoredrive", "set", queue});
  EXPECT_EQ(no_class.exit_code, 1);
  EXPECT_THAT(no_class.err, HasSubstr("--fingerprint is required"));

  auto set = Cli({"dlq", "autoredrive", "set", queue, "--fingerprint", fp, "--cooldown", "10m",
                  "--canary", "5", "--rate", "50/s"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_THAT(set.out, HasSubstr("Enabled:"));
  EXPECT_THAT(set.out, HasSubstr("cooling: next check in"));
  EXPECT_THAT(set.out, HasSubstr("Eligible now:"));

  auto json = ParseJson(Cli({"dlq", "autoredrive", "show", queue, "--json"}).out);
  EXPECT_EQ(json.at("enabled"), true);
  EXPECT_EQ(json.at("fingerprint"), fp.c_str());
  EXPECT_EQ(json.at("cooldown_seconds"), 600);
  EXPECT_EQ(json.at("canary_size"), 5);
  EXPECT_EQ(json.at("rate_per_second"), 50);
  EXPECT_EQ(json.at("eligible_count"), 1);
  EXPECT_EQ(json.at("state").at("phase"), "cooling");

  // Flags left out keep their values.
  ASSERT_EQ(Cli({"dlq", "autoredrive", "set", queue, "--max-revivals", "2"}).exit_code, 0);
  json = ParseJson(Cli({"dlq", "autoredrive", "show", queue, "--json"}).out);
  EXPECT_EQ(json.at("canary_size"), 5);
  EXPECT_EQ(json.at("max_revivals_per_job"), 2);

  auto list = Cli({"dlq", "autoredrive", "list"});
  EXPECT_THAT(list.out, HasSubstr(queue));
  EXPECT_THAT(list.out, HasSubstr(fp));

  auto bad = Cli({"dlq", "autoredrive", "set", queue, "--canary", "500"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("VALIDATION_ERROR"));
  EXPECT_THAT(bad.err, HasSubstr("canary_size"));

  auto off = Cli({"dlq", "autoredrive", "off", queue});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_THAT(off.out, HasSubstr("Phase:"));
  json = ParseJson(Cli({"dlq", "autoredrive", "show", queue, "--json"}).out);
  EXPECT_EQ(json.at("enabled"), false);
  EXPECT_EQ(json.at("state").at("phase"), "idle");
  EXPECT_EQ(json.at("cooldown_seconds"), 600);

  ASSERT_EQ(Cli({"dlq", "autoredrive", "delete", queue}).exit_code, 0);
  EXPECT_EQ(Cli({"dlq", "autoredrive", "show", queue}).exit_code, 1);
}

}  // namespace
}  // namespace redrive::e2e
