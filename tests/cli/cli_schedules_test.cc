// `redrive schedules ...` against a real server: create, show, list, update,
// pause, resume, trigger, history, delete, and a refused cron expression.
#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;

class CliSchedulesTest : public CliTest {};

TEST_F(CliSchedulesTest, TheWholeLifeOfASchedule) {
  const std::string queue = NewQueue("cli-sched");
  auto created = Cli({"schedules", "create", "--name", "nightly", "--cron", "0 30 2 * * *", "--tz",
                      "Europe/Berlin", "--queue", queue, "--payload", R"({"kind":"nightly"})",
                      "--tag", "team=ops", "--overlap-policy", "skip_if_running", "--json"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const auto schedule = ParseJson(created.out).as_object();
  const std::string id(schedule.at("id").as_string());
  EXPECT_EQ(schedule.at("timezone"), "Europe/Berlin");
  EXPECT_EQ(schedule.at("payload_template").at("kind"), "nightly");
  EXPECT_EQ(schedule.at("tags").at("team"), "ops");
  EXPECT_EQ(schedule.at("overlap_policy"), "skip_if_running");

  auto show = Cli({"schedules", "show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("0 30 2 * * * (Europe/Berlin)"));
  EXPECT_THAT(show.out, HasSubstr("skip_if_running"));
  auto list = Cli({"schedules", "list", "--queue", queue});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("nightly"));
  EXPECT_THAT(list.out, HasSubstr(id));

  auto updated = Cli({"schedules", "update", id, "--cron", "@hourly", "--json"});
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(ParseJson(updated.out).at("cron_expression"), "@hourly");
  auto paused = Cli({"schedules", "pause", id, "--json"});
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  EXPECT_EQ(ParseJson(paused.out).at("is_active"), false);
  ASSERT_EQ(Cli({"schedules", "resume", id}).exit_code, 0);

  auto trigger = Cli({"schedules", "trigger", id});
  ASSERT_EQ(trigger.exit_code, 0) << trigger.err;
  EXPECT_THAT(trigger.out, HasSubstr("enqueued job "));
  // The first job still waits: skip_if_running holds the second back.
  auto again = Cli({"schedules", "trigger", id});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("CONFLICT"));
  auto history = Cli({"schedules", "history", id});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_THAT(history.out, HasSubstr("manual"));
  EXPECT_THAT(history.out, HasSubstr("skipped"));
  auto history_json = Cli({"schedules", "history", id, "--limit", "1", "--json"});
  ASSERT_EQ(history_json.exit_code, 0) << history_json.err;
  EXPECT_EQ(ParseJson(history_json.out).as_array().size(), 1u);

  ASSERT_EQ(Cli({"schedules", "delete", id}).exit_code, 0);
  EXPECT_EQ(Cli({"schedules", "get", id}).exit_code, 1);
}

TEST_F(CliSchedulesTest, ARefusedCronNamesTheFieldAndAMissingFlagIsAUsageError) {
  auto bad = Cli({"schedules", "create", "--name", "n", "--cron", "0 0 * * FRY", "--queue", "q"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("cron_expression"));
  EXPECT_THAT(bad.err, HasSubstr("position 9"));
  EXPECT_EQ(Cli({"schedules", "create", "--name", "n", "--queue", "q"}).exit_code, 2);
}

}  // namespace
}  // namespace redrive::e2e
