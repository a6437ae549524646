// redrive::Client's schedule calls against the real server: create, read,
// list, update, pause, resume, trigger, history, delete, and a refused cron
// expression as a value naming its field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/time_format.h"
#include "sdk/support/sdk_fixture.h"

namespace redrive::sdk_test {
namespace {

using ::testing::HasSubstr;

class ClientSchedulesTest : public SdkTest {};

TEST_F(ClientSchedulesTest, EveryScheduleCall) {
  const auto q = NewQueue();
  auto created = client_->CreateSchedule({.name = "nightly",
                                          .cron_expression = "0 30 2 * * *",
                                          .timezone = "Europe/Berlin",
                                          .queue_name = q,
                                          .payload_template = boost::json::object{{"kind", "n"}},
                                          .priority = 4,
                                          .tags = Tags{{"team", "ops"}},
                                          .overlap_policy = "skip_if_running"});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->timezone, "Europe/Berlin");
  EXPECT_EQ(created->payload_template, R"({"kind":"n"})");
  EXPECT_EQ(created->priority, 4);
  EXPECT_EQ(created->tags.at("team"), "ops");
  EXPECT_EQ(created->overlap_policy, OverlapPolicy::kSkipIfRunning);
  EXPECT_TRUE(created->is_active);
  EXPECT_TRUE(created->next_run_at.has_value());
  const std::string id = created->id;

  auto got = client_->GetSchedule(id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, *created);
  auto listed = client_->ListSchedules({.queue_name = q});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, id);

  auto updated = client_->UpdateSchedule(id, {.cron_expression = "@hourly", .max_retries = 1});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->cron_expression, "@hourly");
  EXPECT_EQ(updated->max_retries, 1);
  auto paused = client_->PauseSchedule(id);
  ASSERT_TRUE(paused.ok());
  EXPECT_FALSE(paused->is_active);
  EXPECT_FALSE(paused->next_run_at.has_value());
  auto resumed = client_->ResumeSchedule(id);
  ASSERT_TRUE(resumed.ok());
  EXPECT_TRUE(resumed->is_active);

  auto triggered = client_->TriggerSchedule(id);
  ASSERT_TRUE(triggered.ok()) << triggered.status().ToString();
  auto job = client_->GetJob(triggered->job_id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->tags.at("schedule_id"), id);
  // skip_if_running: the first job still waits.
  auto again = client_->TriggerSchedule(id);
  EXPECT_EQ(again.status().code(), ErrorCode::kConflict);
  auto history = client_->ScheduleHistory(id);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].status, "skipped");
  EXPECT_EQ((*history)[1].status, "pending");
  EXPECT_EQ((*history)[1].run.job_id, triggered->job_id);
  EXPECT_EQ((*history)[1].run.kind, ScheduleRunKind::kManual);
  EXPECT_EQ((*history)[1].job_status, "pending");
  EXPECT_EQ(client_->ScheduleHistory(id, 1)->size(), 1u);

  ASSERT_TRUE(client_->DeleteSchedule(id).ok());
  EXPECT_EQ(client_->GetSchedule(id).status().code(), ErrorCode::kNotFound);
}

TEST_F(ClientSchedulesTest, ARefusedCronIsAValueNamingTheField) {
  auto r = client_->CreateSchedule(
      {.name = "n", .cron_expression = "0 0 * * FRY", .queue_name = NewQueue()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(r.status().field(), "cron_expression");
  EXPECT_THAT(r.status().message(), HasSubstr("position 9"));
}

TEST_F(ClientSchedulesTest, PreviewListsTheNextFireTimesInTheZone) {
  // Midnight of 1 January in Berlin (CET, +01:00) is 23:00 UTC on 31 December.
  const Instant before = std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now());
  auto times = client_->PreviewSchedule("0 0 1 JAN *", "Europe/Berlin", 3);
  ASSERT_TRUE(times.ok()) << times.status().ToString();
  ASSERT_EQ(times->size(), 3u);
  EXPECT_GT((*times)[0], before);
  EXPECT_LE((*times)[0] - before, std::chrono::hours(24 * 366));
  int year = 0;
  for (const Instant& t : *times) {
    const std::string text = FormatTime(t);
    EXPECT_THAT(text, ::testing::EndsWith("-12-31T23:00:00.000Z"));
    const int y = std::stoi(text.substr(0, 4));
    if (year != 0) {
      EXPECT_EQ(y, year + 1);
    }
    year = y;
  }
  auto defaults = client_->PreviewSchedule("@hourly");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->size(), 5u);
  auto zone = client_->PreviewSchedule("@hourly", "Mars/Olympus");
  EXPECT_EQ(zone.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(zone.status().field(), "timezone");
  auto cron = client_->PreviewSchedule("0 0 * * FRY");
  EXPECT_EQ(cron.status().field(), "cron_expression");
}

}  // namespace
}  // namespace redrive::sdk_test
