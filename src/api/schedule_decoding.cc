#include "api/schedule_decoding.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "api/field_rules.h"
#include "api/request_decoding.h"
#include "cron/cron_expression.h"
#include "cron/next_fire.h"
#include "wire/field_reader.h"

namespace redrive::api {
namespace {

constexpr std::string_view kFields[] = {"name",
                                        "description",
                                        "cron_expression",
                                        "timezone",
                                        "queue_name",
                                        "payload_template",
                                        "priority",
                                        "max_retries",
                                        "timeout_seconds",
                                        "tags",
                                        "metadata",
                                        "is_active",
                                        "missed_run_policy",
                                        "overlap_policy",
                                        "backfill_limit"};

constexpr int kMaxListLimit = 500;

// A key of the body no route field has: refused rather than ignored.
Status CheckKnownFields(const boost::json::object& body) {
  for (const auto& [key, value] : body) {
    if (std::ranges::find(kFields, std::string_view(key)) == std::end(kFields)) {
      // The key is named, not echoed in full: it may be huge.
      const std::string shown(std::string_view(key).substr(0, 64));
      return Status::Validation(shown, "unknown field '" + shown + "'");
    }
  }
  return Status::Ok();
}

// `parsed`, when given, receives the parsed expression.
Result<std::optional<std::string>> CronField(const wire::FieldReader& r,
                                             cron::CronExpression* parsed = nullptr) {
  REDRIVE_ASSIGN_OR_RETURN(auto text, r.String("cron_expression", 1, cron::kMaxExpressionLength));
  if (text) {
    REDRIVE_ASSIGN_OR_RETURN(cron::CronExpression expression, cron::ParseCron(*text));
    if (parsed != nullptr) *parsed = expression;
  }
  return text;
}

// `found`, when given, receives the zone.
Result<std::optional<std::string>> ZoneField(const wire::FieldReader& r,
                                             const date::time_zone** found = nullptr) {
  REDRIVE_ASSIGN_OR_RETURN(auto zone, r.String("timezone", 1, cron::kMaxTimeZoneLength));
  if (zone) {
    REDRIVE_ASSIGN_OR_RETURN(const date::time_zone* z, cron::FindTimeZone(*zone));
    if (found != nullptr) *found = z;
  }
  return zone;
}

Result<std::optional<std::string>> PayloadTemplate(const wire::FieldReader& r,
                                                   const ServerLimits& limits) {
  const boost::json::value* v = r.Find("payload_template");
  if (v == nullptr) return std::optional<std::string>();
  REDRIVE_ASSIGN_OR_RETURN(
      std::string text, SerializeLimited(*v, r.Path("payload_template"), limits.max_payload_bytes));
  return std::optional<std::string>(std::move(text));
}

// A job's tags, with room left for the schedule's own.
Result<std::optional<Tags>> ScheduleTags(const wire::FieldReader& r, const ServerLimits& limits) {
  if (r.Find("tags") == nullptr) return std::optional<Tags>();
  ServerLimits room = limits;
  room.max_tags = limits.max_tags > 0 ? limits.max_tags - 1 : 0;
  // ,"schedule_id":"<UUID>" serialized.
  constexpr size_t kScheduleTagBytes = 16 + 36 + 2;
  room.max_tags_bytes =
      limits.max_tags_bytes > kScheduleTagBytes ? limits.max_tags_bytes - kScheduleTagBytes : 0;
  REDRIVE_ASSIGN_OR_RETURN(Tags tags, TagsField(r, room));
  if (tags.contains(std::string(kScheduleTag))) {
    return Status::Validation("tags", "tags: schedule_id is set by the schedule on each job");
  }
  return std::optional<Tags>(std::move(tags));
}

Result<std::optional<MissedRunPolicy>> MissedPolicy(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(auto text, r.String("missed_run_policy", 1, 32));
  if (!text) return std::optional<MissedRunPolicy>();
  auto p = ParseMissedRunPolicy(*text);
  if (!p) {
    return Status::Validation("missed_run_policy",
                              "missed_run_policy must be skip, run_once or backfill");
  }
  return std::optional<MissedRunPolicy>(*p);
}

Result<std::optional<OverlapPolicy>> Overlap(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(auto text, r.String("overlap_policy", 1, 32));
  if (!text) return std::optional<OverlapPolicy>();
  auto p = ParseOverlapPolicy(*text);
  if (!p) {
    return Status::Validation("overlap_policy",
                              "overlap_policy must be allow, skip_if_running or cancel_previous");
  }
  return std::optional<OverlapPolicy>(*p);
}

Result<std::optional<int>> BackfillLimit(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(auto n, r.Int("backfill_limit", 1, kMaxBackfillLimit));
  if (!n) return std::optional<int>();
  return std::optional<int>(static_cast<int>(*n));
}

// The fields create and update share, into a patch (create then fills in
// its defaults and required fields).
Result<engine::SchedulePatch> DecodeFields(const boost::json::object& body,
                                           const ServerLimits& limits) {
  REDRIVE_RETURN_IF_ERROR(CheckKnownFields(body));
  wire::FieldReader r(body);
  engine::SchedulePatch p;
  REDRIVE_ASSIGN_OR_RETURN(p.name, r.String("name", 1, kMaxScheduleNameBytes));
  if (r.IsExplicitNull("description")) {
    p.description = std::optional<std::string>();
  } else {
    REDRIVE_ASSIGN_OR_RETURN(auto description,
                             r.String("description", 0, kMaxScheduleDescriptionBytes));
    if (description) p.description = std::move(description);
  }
  REDRIVE_ASSIGN_OR_RETURN(p.cron_expression, CronField(r));
  REDRIVE_ASSIGN_OR_RETURN(p.timezone, ZoneField(r));
  REDRIVE_ASSIGN_OR_RETURN(p.queue_name, OptionalQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(p.payload_template, PayloadTemplate(r, limits));
  REDRIVE_ASSIGN_OR_RETURN(p.priority, Priority(r, "priority"));
  REDRIVE_ASSIGN_OR_RETURN(p.max_retries, MaxRetries(r, "max_retries"));
  REDRIVE_ASSIGN_OR_RETURN(p.timeout_seconds, TimeoutSeconds(r, "timeout_seconds"));
  REDRIVE_ASSIGN_OR_RETURN(p.tags, ScheduleTags(r, limits));
  REDRIVE_ASSIGN_OR_RETURN(p.metadata, ObjectText(r, "metadata", kMaxScheduleMetadataBytes));
  REDRIVE_ASSIGN_OR_RETURN(p.is_active, r.Bool("is_active"));
  REDRIVE_ASSIGN_OR_RETURN(p.missed_run_policy, MissedPolicy(r));
  REDRIVE_ASSIGN_OR_RETURN(p.overlap_policy, Overlap(r));
  REDRIVE_ASSIGN_OR_RETURN(p.backfill_limit, BackfillLimit(r));
  return p;
}

}  // namespace

Result<engine::CreateScheduleParams> DecodeCreateSchedule(const boost::json::object& body,
                                                          const ServerLimits& limits) {
  REDRIVE_ASSIGN_OR_RETURN(engine::SchedulePatch f, DecodeFields(body, limits));
  if (!f.name) return wire::MissingField("name");
  if (!f.cron_expression) return wire::MissingField("cron_expression");
  if (!f.queue_name) return wire::MissingField("queue_name");
  engine::CreateScheduleParams p;
  p.name = std::move(*f.name);
  if (f.description) p.description = std::move(*f.description);
  p.cron_expression = std::move(*f.cron_expression);
  if (f.timezone) p.timezone = std::move(*f.timezone);
  p.queue_name = std::move(*f.queue_name);
  if (f.payload_template) p.payload_template = std::move(*f.payload_template);
  if (f.priority) p.priority = *f.priority;
  if (f.max_retries) p.max_retries = *f.max_retries;
  if (f.timeout_seconds) p.timeout_seconds = *f.timeout_seconds;
  if (f.tags) p.tags = std::move(*f.tags);
  if (f.metadata) p.metadata = std::move(*f.metadata);
  if (f.is_active) p.is_active = *f.is_active;
  if (f.missed_run_policy) p.missed_run_policy = *f.missed_run_policy;
  if (f.overlap_policy) p.overlap_policy = *f.overlap_policy;
  if (f.backfill_limit) p.backfill_limit = *f.backfill_limit;
  return p;
}

Result<engine::SchedulePatch> DecodeSchedulePatch(const boost::json::object& body,
                                                  const ServerLimits& limits) {
  return DecodeFields(body, limits);
}

Result<engine::ListSchedulesParams> DecodeListSchedules(const QueryParams& query) {
  engine::ListSchedulesParams p;
  if (QueryString(query, "is_active")) {
    REDRIVE_ASSIGN_OR_RETURN(bool active, QueryBool(query, "is_active", true));
    p.is_active = active;
  }
  REDRIVE_ASSIGN_OR_RETURN(p.queue_name, QueryQueueName(query));
  REDRIVE_ASSIGN_OR_RETURN(p.limit, QueryLimit(query, "limit", kMaxListLimit, 100));
  REDRIVE_ASSIGN_OR_RETURN(auto offset, QueryInt(query, "offset", 0, 1'000'000'000));
  p.offset = static_cast<int>(offset.value_or(0));
  return p;
}

Result<HistoryPage> DecodeScheduleHistory(const QueryParams& query) {
  HistoryPage page;
  REDRIVE_ASSIGN_OR_RETURN(page.limit, QueryLimit(query, "limit", kMaxListLimit, 50));
  REDRIVE_ASSIGN_OR_RETURN(auto offset, QueryInt(query, "offset", 0, 1'000'000'000));
  page.offset = static_cast<int>(offset.value_or(0));
  return page;
}

Result<SchedulePreviewQuery> DecodeSchedulePreview(const QueryParams& query) {
  // The two texts go through the create body's own checks, so a refusal
  // reads the same on both routes.
  boost::json::object fields;
  if (auto text = QueryString(query, "cron_expression")) fields["cron_expression"] = *text;
  if (auto zone = QueryString(query, "timezone")) fields["timezone"] = *zone;
  const wire::FieldReader r(fields);
  SchedulePreviewQuery q;
  REDRIVE_ASSIGN_OR_RETURN(auto text, CronField(r, &q.expression));
  if (!text) return wire::MissingField("cron_expression");
  q.cron_expression = std::move(*text);
  REDRIVE_ASSIGN_OR_RETURN(auto zone, ZoneField(r, &q.zone));
  if (zone) {
    q.timezone = std::move(*zone);
  } else {
    REDRIVE_ASSIGN_OR_RETURN(q.zone, cron::FindTimeZone(q.timezone));
  }
  REDRIVE_ASSIGN_OR_RETURN(q.count,
                           QueryLimit(query, "count", kMaxPreviewCount, kDefaultPreviewCount));
  return q;
}

}  // namespace redrive::api
