// GET /schedules/preview through Api::Handle: an expression's next fire times
// in its zone from the API's clock (manual here), across daylight saving
// time, the same refusals as creating a schedule, the count's clamp, roles,
// and the literal segment winning over /schedules/{id}.
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_test_util.h"
#include "core/time_format.h"

namespace redrive::api::testing {
namespace {

// `text` percent-encoded for a query value (all but RFC 3986's unreserved).
std::string Encoded(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Instant At(std::string_view rfc3339) {
  std::optional<Instant> t = ParseTime(rfc3339);
  EXPECT_TRUE(t.has_value()) << rfc3339;
  return t.value_or(Instant{});
}

using Times = std::vector<std::string>;

class ApiSchedulePreviewTest : public ApiTest {
 protected:
  void SetUp() override {
    options_.clock = &clock_;  // the preview's "now", like the engine's
    ApiTest::SetUp();
  }
  Reply Preview(std::string_view cron, std::string_view extra = "") {
    return Get("/api/v1/schedules/preview?cron_expression=" + Encoded(cron) + std::string(extra));
  }
  // The preview's times, or nothing when it was refused.
  Times Fires(std::string_view cron, std::string_view extra = "") {
    Reply r = Preview(cron, extra);
    EXPECT_EQ(r.status, 200) << cron << " → " << r.raw.body;
    Times out;
    if (r.status != 200) return out;
    for (const auto& t : r["next_run_times"].as_array()) out.push_back(Str(t));
    return out;
  }
};

TEST_F(ApiSchedulePreviewTest, FiveFieldExpressionAcrossBerlinsSpringForward) {
  // Sunday 28 March 2027, 02:00 CET → 03:00 CEST: 02:30 does not exist and
  // fires once at the first instant after the gap.
  clock_.Set(At("2027-03-26T12:00:00Z"));
  Reply r = Preview("30 2 * * *", "&timezone=Europe/Berlin");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["cron_expression"], "30 2 * * *");
  EXPECT_EQ(r["timezone"], "Europe/Berlin");
  EXPECT_EQ(
      Fires("30 2 * * *", "&timezone=Europe/Berlin"),
      (Times{"2027-03-27T02:30:00+01:00", "2027-03-28T03:00:00+02:00", "2027-03-29T02:30:00+02:00",
             "2027-03-30T02:30:00+02:00", "2027-03-31T02:30:00+02:00"}));
}

TEST_F(ApiSchedulePreviewTest, SixFieldExpressionAcrossBerlinsFallBack) {
  // Sunday 31 October 2027, 03:00 CEST → 02:00 CET: 02:30 happens twice and
  // fires once, the first time.
  clock_.Set(At("2027-10-29T12:00:00Z"));
  EXPECT_EQ(Fires("0 30 2 * * *", "&timezone=Europe/Berlin&count=3"),
            (Times{"2027-10-30T02:30:00+02:00", "2027-10-31T02:30:00+02:00",
                   "2027-11-01T02:30:00+01:00"}));
  // Seconds count: strictly after now, 08:00:00 itself excluded.
  clock_.Set(At("2027-01-15T08:00:00Z"));
  EXPECT_EQ(Fires("15 */20 * * * *", "&count=3"),
            (Times{"2027-01-15T08:00:15+00:00", "2027-01-15T08:20:15+00:00",
                   "2027-01-15T08:40:15+00:00"}));
}

TEST_F(ApiSchedulePreviewTest, EveryIsAFixedPeriodFromNowWhateverTheZone) {
  Reply r = Preview("@every 90s");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["timezone"], "UTC");  // the default, as on create
  EXPECT_EQ(Fires("@every 90s"), (Times{"2027-01-15T08:01:30+00:00", "2027-01-15T08:03:00+00:00",
                                        "2027-01-15T08:04:30+00:00", "2027-01-15T08:06:00+00:00",
                                        "2027-01-15T08:07:30+00:00"}));
  EXPECT_EQ(Fires("@every 90s", "&timezone=America/New_York&count=2"),
            (Times{"2027-01-15T03:01:30-05:00", "2027-01-15T03:03:00-05:00"}));
}

TEST_F(ApiSchedulePreviewTest, ThePreviewIsWhatTheScheduleFires) {
  clock_.Set(At("2027-03-26T12:00:00Z"));
  const Times preview = Fires("30 2 * * *", "&timezone=Europe/Berlin");
  ASSERT_EQ(preview.size(), 5u);
  Reply created = Post("/api/v1/schedules", R"({"name":"n","cron_expression":"30 2 * * *",)"
                                            R"("timezone":"Europe/Berlin","queue_name":"q"})");
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string path = "/api/v1/schedules/" + Str(created["id"]);
  EXPECT_EQ(Str(created["next_run_at"]), FormatTime(At(preview[0])));
  for (const std::string& fire : preview) {
    clock_.Set(At(fire));
    engine_->RunServicesOnce();
    Reply s = Get(path);
    EXPECT_EQ(Str(s["last_run_at"]), FormatTime(At(fire)));
  }
  EXPECT_EQ(Get(path)["run_count"], 5);
}

TEST_F(ApiSchedulePreviewTest, CountIsClampedTo1Through20) {
  EXPECT_EQ(Fires("@hourly", "&count=0").size(), 1u);
  EXPECT_EQ(Fires("@hourly", "&count=1").size(), 1u);
  EXPECT_EQ(Fires("@hourly", "&count=20").size(), 20u);
  EXPECT_EQ(Fires("@hourly", "&count=21").size(), 20u);
  EXPECT_EQ(Fires("@hourly", "&count=99999999999999999999").size(), 20u);
  EXPECT_EQ(Fires("@hourly", "&count=").size(), 5u);  // empty is absent
  for (std::string_view bad : {"-1", "ten", "1.5"}) {
    Reply r = Preview("@hourly", "&count=" + std::string(bad));
    ASSERT_EQ(r.status, 400) << bad;
    EXPECT_EQ(r.Field(), "count");
  }
}

TEST_F(ApiSchedulePreviewTest, ABadExpressionOrZoneIsRefusedAsOnCreate) {
  Reply r = Preview("0 0 * * FRY");
  ASSERT_EQ(r.status, 400) << r.raw.body;
  EXPECT_EQ(r.Code(), "VALIDATION_ERROR");
  EXPECT_EQ(r.Field(), "cron_expression");
  EXPECT_EQ(r["message"], "day_of_week at position 9: unknown value 'FRY'");
  // Word for word what creating a schedule answers.
  Reply create =
      Post("/api/v1/schedules", R"({"name":"n","cron_expression":"0 0 * * FRY","queue_name":"q"})");
  EXPECT_EQ(create.json, r.json);

  Reply minute = Preview("61 * * * *");
  ASSERT_EQ(minute.status, 400);
  EXPECT_EQ(minute.Field(), "cron_expression");
  EXPECT_NE(Str(minute["message"]).find("minute"), std::string::npos) << minute.raw.body;
  EXPECT_NE(Str(minute["message"]).find("position 1"), std::string::npos) << minute.raw.body;

  Reply zone = Preview("@hourly", "&timezone=Mars/Olympus");
  ASSERT_EQ(zone.status, 400);
  EXPECT_EQ(zone.Field(), "timezone");
  EXPECT_EQ(zone["message"],
            "unknown timezone 'Mars/Olympus' (an IANA zone name such as UTC or Europe/Berlin)");
  EXPECT_EQ(Preview("@hourly", "&timezone=" + std::string(65, 'Z')).Field(), "timezone");

  Reply missing = Get("/api/v1/schedules/preview");
  ASSERT_EQ(missing.status, 400);
  EXPECT_EQ(missing.Field(), "cron_expression");
  EXPECT_EQ(missing["message"], "cron_expression is required");
  EXPECT_EQ(Get("/api/v1/schedules/preview?cron_expression=").Field(), "cron_expression");

  // Bounded as on create: 256 bytes ("10,0,0,…,0 0 * * *").
  std::string minutes = "10";
  for (int i = 0; i < 123; ++i) minutes += ",0";
  ASSERT_EQ((minutes + " 0 * * *").size(), 256u);
  EXPECT_EQ(Fires(minutes + " 0 * * *", "&count=1"), Times{"2027-01-16T00:00:00+00:00"});
  Reply long_one = Preview(minutes + ",0 0 * * *");
  ASSERT_EQ(long_one.status, 400);
  EXPECT_EQ(long_one.Field(), "cron_expression");
}

TEST_F(ApiSchedulePreviewTest, PreviewIsALiteralSegmentNotAScheduleId) {
  // Before the route existed this was GET /schedules/{id} with id "preview":
  // 404. It must stay the preview whatever schedules exist.
  Reply r = Preview("@daily");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["next_run_times"].as_array().size(), 5u);
  EXPECT_EQ(r["next_run_times"].as_array()[0], "2027-01-16T00:00:00+00:00");
  // A schedule's own routes are untouched.
  Reply missing = Get("/api/v1/schedules/01a2355a-90a6-76cb-8e52-7f1ad583da3f");
  EXPECT_EQ(missing.status, 404);
  Reply created =
      Post("/api/v1/schedules", R"({"name":"n","cron_expression":"@daily","queue_name":"q"})");
  ASSERT_EQ(created.status, 201);
  EXPECT_EQ(Get("/api/v1/schedules/" + Str(created["id"])).status, 200);
  // Only GET is the preview.
  Reply post = Post("/api/v1/schedules/preview", "");
  EXPECT_EQ(post.status, 405);
}

TEST_F(ApiSchedulePreviewTest, ViewersAndAdminsPreviewWorkersDoNot) {
  ApiOptions o;
  o.clock = &clock_;
  o.keys = {
      {Role::kAdmin, "admin-key"}, {Role::kViewer, "viewer-key"}, {Role::kWorker, "worker-key"}};
  Reconfigure(o);
  const std::string path = "/api/v1/schedules/preview?cron_expression=%40hourly";
  EXPECT_EQ(Get(path, "admin-key").status, 200);
  EXPECT_EQ(Get(path, "viewer-key").status, 200);
  EXPECT_EQ(Get(path, "worker-key").status, 403);
  EXPECT_EQ(Get(path).status, 401);
}

}  // namespace
}  // namespace redrive::api::testing
