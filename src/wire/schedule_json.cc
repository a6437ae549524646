#include "wire/schedule_json.h"

#include <boost/json/value_from.hpp>

#include "wire/json_read.h"
#include "wire/json_text.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

using boost::json::value_from;  // an unset std::optional becomes null

boost::json::object TagsJson(const Tags& tags) {
  boost::json::object out;
  for (const auto& [k, v] : tags) out[k] = v;
  return out;
}

std::optional<std::string> ReadJsonText(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  return SerializeJson(*v);
}

}  // namespace

boost::json::object ScheduleToJson(const Schedule& s) {
  boost::json::object out{{"id", s.id},
                          // Spooled's tenant; Redrive has one.
                          {"organization_id", "default"},
                          {"name", s.name},
                          {"description", value_from(s.description)},
                          {"cron_expression", s.cron_expression},
                          {"timezone", s.timezone},
                          {"queue_name", s.queue_name},
                          {"payload_template", EmbedJsonText(s.payload_template)},
                          {"priority", s.priority},
                          {"max_retries", s.max_retries},
                          {"timeout_seconds", s.timeout_seconds},
                          {"tags", TagsJson(s.tags)},
                          {"metadata", EmbedJsonText(s.metadata)},
                          {"is_active", s.is_active},
                          {"last_run_at", TimeToJson(s.last_run_at)},
                          {"next_run_at", TimeToJson(s.next_run_at)},
                          {"run_count", s.run_count},
                          {"created_at", TimeToJson(s.created_at)},
                          {"updated_at", TimeToJson(s.updated_at)}};
  out["missed_run_policy"] = MissedRunPolicyName(s.missed_run_policy);
  out["overlap_policy"] = OverlapPolicyName(s.overlap_policy);
  out["backfill_limit"] = s.backfill_limit;
  out["last_job_id"] = value_from(s.last_job_id);
  return out;
}

std::string ScheduleRunStatus(const ScheduleRun& run, const std::optional<JobStatus>& job_status) {
  if (!run.job_id) {
    return run.error && run.error->starts_with("skipped") ? "skipped" : "failed";
  }
  if (!job_status) return "completed";  // the job is gone: retention removes finished jobs
  switch (*job_status) {
    case JobStatus::kPending:
    case JobStatus::kScheduled:
    case JobStatus::kBlocked:
      return "pending";
    case JobStatus::kProcessing:
      return "running";
    case JobStatus::kCompleted:
      return "completed";
    case JobStatus::kCancelled:
      return "cancelled";
    case JobStatus::kDeadletter:
    case JobStatus::kQuarantined:
      return "failed";
  }
  return "failed";
}

boost::json::object ScheduleRunToJson(const ScheduleRun& run,
                                      const std::optional<JobStatus>& job_status) {
  boost::json::object out{{"id", run.id},
                          {"schedule_id", run.schedule_id},
                          {"job_id", value_from(run.job_id)},
                          {"status", ScheduleRunStatus(run, job_status)},
                          {"error_message", value_from(run.error)},
                          {"started_at", TimeToJson(run.created_at)},
                          // Redrive does not track when a run's job finished
                          // here; GET /jobs/{job_id} has it.
                          {"completed_at", nullptr}};
  out["fire_time"] = TimeToJson(run.fire_time);
  out["kind"] = ScheduleRunKindName(run.kind);
  out["job_status"] =
      job_status ? boost::json::value(JobStatusName(*job_status)) : boost::json::value(nullptr);
  return out;
}

Result<Schedule> ScheduleFromJson(const boost::json::object& o) {
  if (!ReadString(o, "id")) return Status::Internal("malformed schedule in the server's answer");
  Schedule s;
  s.id = ReadStringOr(o, "id");
  s.name = ReadStringOr(o, "name");
  s.description = ReadString(o, "description");
  s.cron_expression = ReadStringOr(o, "cron_expression");
  s.timezone = ReadStringOr(o, "timezone", "UTC");
  s.queue_name = ReadStringOr(o, "queue_name");
  s.payload_template = ReadJsonText(o, "payload_template").value_or("{}");
  s.priority = static_cast<int>(ReadIntOr(o, "priority", 0));
  s.max_retries = static_cast<int>(ReadIntOr(o, "max_retries", 3));
  s.timeout_seconds = static_cast<int>(ReadIntOr(o, "timeout_seconds", 300));
  s.tags = ReadTags(o, "tags");
  s.metadata = ReadJsonText(o, "metadata").value_or("{}");
  s.is_active = ReadBoolOr(o, "is_active", true);
  s.missed_run_policy =
      ParseMissedRunPolicy(ReadStringOr(o, "missed_run_policy")).value_or(MissedRunPolicy::kSkip);
  s.overlap_policy =
      ParseOverlapPolicy(ReadStringOr(o, "overlap_policy")).value_or(OverlapPolicy::kAllow);
  s.backfill_limit = static_cast<int>(ReadIntOr(o, "backfill_limit", 10));
  s.last_run_at = ReadTime(o, "last_run_at");
  s.next_run_at = ReadTime(o, "next_run_at");
  s.last_job_id = ReadString(o, "last_job_id");
  s.run_count = ReadIntOr(o, "run_count", 0);
  s.created_at = ReadTime(o, "created_at").value_or(Instant{});
  s.updated_at = ReadTime(o, "updated_at").value_or(Instant{});
  return s;
}

Result<ScheduleRunView> ScheduleRunFromJson(const boost::json::object& o) {
  if (!ReadString(o, "id")) {
    return Status::Internal("malformed schedule run in the server's answer");
  }
  ScheduleRunView v;
  v.run.id = ReadStringOr(o, "id");
  v.run.schedule_id = ReadStringOr(o, "schedule_id");
  v.run.job_id = ReadString(o, "job_id");
  v.run.error = ReadString(o, "error_message");
  v.run.created_at = ReadTime(o, "started_at").value_or(Instant{});
  v.run.fire_time = ReadTime(o, "fire_time").value_or(v.run.created_at);
  v.run.kind = ParseScheduleRunKind(ReadStringOr(o, "kind")).value_or(ScheduleRunKind::kScheduled);
  v.status = ReadStringOr(o, "status");
  v.job_status = ReadString(o, "job_status");
  return v;
}

}  // namespace redrive::wire
