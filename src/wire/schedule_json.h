// JSON of schedules (cron jobs) and their runs (GET/POST/PUT /schedules...,
// /schedules/{id}/history), in Spooled's field names plus Redrive's
// extensions (docs/api.md, "Schedules"). Shared by the API (encoding) and the
// SDK (decoding).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "core/schedule.h"
#include "core/status.h"

namespace redrive::wire {

// {id, organization_id, name, description, cron_expression, timezone,
//  queue_name, payload_template, priority, max_retries, timeout_seconds,
//  tags, metadata, is_active, last_run_at, next_run_at, run_count,
//  created_at, updated_at} and [ext] {missed_run_policy, overlap_policy,
//  backfill_limit, last_job_id}.
boost::json::object ScheduleToJson(const Schedule& s);

// One history entry. Spooled's {id, schedule_id, job_id, status,
// error_message, started_at, completed_at} and [ext] {fire_time, kind,
// job_status}. `status` is the run's, from its job: pending (the job waits:
// pending or scheduled), running (processing), completed, failed
// (deadletter or quarantined), cancelled; without a job, skipped (the
// overlap policy held it back) or failed (missed times, a refused enqueue).
boost::json::object ScheduleRunToJson(const ScheduleRun& run,
                                      const std::optional<JobStatus>& job_status);

// The run status named above.
std::string ScheduleRunStatus(const ScheduleRun& run, const std::optional<JobStatus>& job_status);

// The SDK's direction, lenient as json_read.h: only `id` is required
// (INTERNAL when missing: the server's answer is not a schedule).
Result<Schedule> ScheduleFromJson(const boost::json::object& o);

// A history entry as the SDK reads it.
struct ScheduleRunView {
  ScheduleRun run;
  std::string status;                     // ScheduleRunStatus
  std::optional<std::string> job_status;  // the job's status name
};
Result<ScheduleRunView> ScheduleRunFromJson(const boost::json::object& o);

}  // namespace redrive::wire
