// Validating the bodies and queries of the /schedules routes (docs/api.md,
// "Schedules"):
//   name               1..255 bytes (required on create)
//   description        0..1000 bytes; null on update clears it
//   cron_expression    cron/cron_expression.h's grammar, ≤ 256 bytes
//                      (required on create); refused naming the cron field
//                      and the position in the message
//   timezone           an IANA zone of the server's tz database ("UTC")
//   queue_name         as a job's (required on create)
//   payload_template   any JSON value, ≤ the job payload limit ({} when absent)
//   priority, max_retries, timeout_seconds   as a job's
//   tags               as a job's, one fewer (each job also gets
//                      schedule_id=<id>), and not the key schedule_id
//   metadata           a JSON object ≤ 16 KiB
//   is_active          boolean
//   missed_run_policy  [ext] skip | run_once | backfill
//   overlap_policy     [ext] allow | skip_if_running | cancel_previous
//   backfill_limit     [ext] 1..1000
// Any other key is refused (a misspelt field must not be silently ignored).
// Every failure is a VALIDATION_ERROR whose details.field names the field
// (PAYLOAD_TOO_LARGE for an oversized payload_template).
#pragma once

#include <boost/json/object.hpp>

#include "api/call.h"
#include "core/limits.h"
#include "core/status.h"
#include "cron/cron_expression.h"
#include "cron/next_fire.h"
#include "engine/requests.h"

namespace redrive::api {

inline constexpr size_t kMaxScheduleNameBytes = 255;
inline constexpr size_t kMaxScheduleDescriptionBytes = 1000;
inline constexpr size_t kMaxScheduleMetadataBytes = 16 << 10;

Result<engine::CreateScheduleParams> DecodeCreateSchedule(const boost::json::object& body,
                                                          const ServerLimits& limits);
// Every field optional; given ones are checked as for create.
Result<engine::SchedulePatch> DecodeSchedulePatch(const boost::json::object& body,
                                                  const ServerLimits& limits);

// GET /schedules: is_active, queue_name, limit (clamped to 1..500, default
// 100), offset; Spooled's organization_id is accepted and ignored.
Result<engine::ListSchedulesParams> DecodeListSchedules(const QueryParams& query);

// GET /schedules/{id}/history: limit (clamped to 1..500, default 50), offset.
struct HistoryPage {
  int limit = 50;
  int offset = 0;
};
Result<HistoryPage> DecodeScheduleHistory(const QueryParams& query);

// GET /schedules/preview: cron_expression (required) and timezone (UTC when
// absent), checked as on create, with the same refusals; count, how many
// fire times, clamped to 1..20 like a list's limit (default 5).
inline constexpr int kMaxPreviewCount = 20;
inline constexpr int kDefaultPreviewCount = 5;
struct SchedulePreviewQuery {
  std::string cron_expression;
  std::string timezone = "UTC";
  cron::CronExpression expression;
  const date::time_zone* zone = nullptr;  // never null once decoded
  int count = kDefaultPreviewCount;
};
Result<SchedulePreviewQuery> DecodeSchedulePreview(const QueryParams& query);

}  // namespace redrive::api
