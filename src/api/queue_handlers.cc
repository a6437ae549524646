// Queues: list, read, stats, configure, pause, resume, delete.
#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <chrono>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "wire/queue_json.h"
#include "wire/time_json.h"

namespace redrive::api {
namespace {

// Ten years: longer retention is "forever", which null already says.
constexpr int64_t kMaxRetentionSeconds = 10LL * 365 * 24 * 3600;
constexpr size_t kMaxPauseReasonBytes = 1024;

using RetentionField = std::optional<std::optional<std::chrono::seconds>>;

// Absent: unchanged; null: keep forever; N: keep N seconds.
Result<RetentionField> DecodeRetentionField(const wire::FieldReader& r, std::string_view key) {
  if (r.IsExplicitNull(key)) return RetentionField(std::optional<std::chrono::seconds>());
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> s, r.Int(key, 0, kMaxRetentionSeconds));
  if (!s) return RetentionField();
  return RetentionField(std::chrono::seconds(*s));
}

Status DecodeRetention(const wire::FieldReader& r, engine::QueueConfigPatch& p) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* object, r.Object("retention"));
  if (object == nullptr) return Status::Ok();
  wire::FieldReader rr(*object, "retention");
  REDRIVE_ASSIGN_OR_RETURN(p.retention_completed, DecodeRetentionField(rr, "completed_seconds"));
  REDRIVE_ASSIGN_OR_RETURN(p.retention_deadletter, DecodeRetentionField(rr, "deadletter_seconds"));
  REDRIVE_ASSIGN_OR_RETURN(p.retention_cancelled, DecodeRetentionField(rr, "cancelled_seconds"));
  return Status::Ok();
}

Result<engine::QueueConfigPatch> DecodeConfigPatch(const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::QueueConfigPatch p;
  // Spooled's queue config fields Redrive does not implement (docs/api.md).
  REDRIVE_RETURN_IF_ERROR(NotSupported(r, "rate_limit", "Redrive does not rate-limit queues"));
  REDRIVE_RETURN_IF_ERROR(NotSupported(
      r, "settings", "Redrive keeps no free-form queue settings; use backoff and retention"));
  REDRIVE_ASSIGN_OR_RETURN(p.max_retries, MaxRetries(r, "max_retries"));
  REDRIVE_ASSIGN_OR_RETURN(p.default_timeout, TimeoutSeconds(r, "default_timeout"));
  REDRIVE_ASSIGN_OR_RETURN(p.enabled, r.Bool("enabled"));
  REDRIVE_ASSIGN_OR_RETURN(p.backoff, Backoff(r));
  REDRIVE_ASSIGN_OR_RETURN(p.crash_limit, CrashLimit(r));
  REDRIVE_ASSIGN_OR_RETURN(p.max_snoozes, MaxSnoozes(r));
  REDRIVE_RETURN_IF_ERROR(DecodeRetention(r, p));
  return p;
}

Response QueueViewResponse(engine::QueueView& v) {
  return JsonResponse(200, wire::QueueViewToJson(v.config, v.counts, v.oldest_deadletter_at));
}

// GET /queues/{name}/stats: the counts flat, with Spooled's QueueStats
// names. The 24-hour figures come from the hourly totals (whole hours: the
// current one and the 23 before it, as of each node's last sample), the
// oldest waiting job's age from one index step: never a scan of the jobs.
// failed_jobs_24h counts jobs that failed for good (dead-lettered), as the
// dashboard's failed_24h; failed_attempts_24h [ext] counts every failed
// attempt.
Response QueueStatsResponse(engine::QueueStatsView& s) {
  const engine::QueueView& v = s.queue;
  boost::json::object out{{"queue_name", v.config.queue_name}};
  for (auto& [key, value] : wire::StatusCountsToJson(v.counts)) out[key] = value;
  out["total"] = v.counts.total();
  out["pending_jobs"] = v.counts.pending;
  out["processing_jobs"] = v.counts.processing;
  out["oldest_deadletter_at"] = wire::TimeToJson(v.oldest_deadletter_at);
  out["active_workers"] = s.active_workers;
  out["completed_jobs_24h"] = s.last_day.completed;
  out["failed_jobs_24h"] = s.last_day.deadlettered;
  out["failed_attempts_24h"] = s.last_day.failed;
  out["avg_processing_time_ms"] =
      wire::AverageMillisToJson(s.last_day.processing, s.last_day.completed);
  out["avg_wait_time_ms"] = wire::AverageMillisToJson(s.last_day.waiting, s.last_day.claimed);
  out["max_job_age_seconds"] = nullptr;
  if (s.oldest_waiting_created_at) {
    out["max_job_age_seconds"] = std::max<long long>(
        0, std::chrono::floor<std::chrono::seconds>(s.now - *s.oldest_waiting_created_at).count());
  }
  return JsonResponse(200, out);
}

// Pause/resume answer the QueueConfig plus the keys of Spooled's
// PauseQueueResponse/ResumeQueueResponse that Redrive can fill.
Response PauseResponse(QueueConfig& c) {
  boost::json::object out = wire::QueueConfigToJson(c);
  out["paused_at"] = wire::TimeToJson(c.updated_at);
  out["reason"] = out["paused_reason"];
  return JsonResponse(200, out);
}

Response ResumeResponse(QueueConfig& c) {
  boost::json::object out = wire::QueueConfigToJson(c);
  out["resumed"] = true;
  return JsonResponse(200, out);
}

// The {name} of a queue route, checked like a body's queue_name.
Result<std::string> QueueName(const Call& call) {
  const std::string& name = call.Param("name");
  REDRIVE_RETURN_IF_ERROR(CheckQueueName(name, "queue_name"));
  return name;
}

}  // namespace

void HandleListQueues(Call& call) {
  call.engine.ListQueues(
      Answer<std::vector<engine::QueueView>>(call.respond, [](std::vector<engine::QueueView>& vs) {
        boost::json::array out;
        for (const engine::QueueView& v : vs) {
          out.push_back(wire::QueueViewToJson(v.config, v.counts, v.oldest_deadletter_at));
        }
        return JsonResponse(200, out);
      }));
}

void HandleGetQueue(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  call.engine.GetQueue(std::move(*name),
                       Answer<engine::QueueView>(call.respond, QueueViewResponse));
}

void HandleQueueStats(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  call.engine.QueueStats(std::move(*name),
                         Answer<engine::QueueStatsView>(call.respond, QueueStatsResponse));
}

void HandleConfigureQueue(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::QueueConfigPatch> patch = DecodeConfigPatch(*body);
  if (!patch.ok()) return call.Fail(patch.status());
  call.engine.ConfigureQueue(std::move(*name), std::move(*patch),
                             Answer<QueueConfig>(call.respond, [](QueueConfig& c) {
                               return JsonResponse(200, wire::QueueConfigToJson(c));
                             }));
}

void HandlePauseQueue(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<std::optional<std::string>> reason =
      wire::FieldReader(*body).String("reason", 0, kMaxPauseReasonBytes);
  if (!reason.ok()) return call.Fail(reason.status());
  call.engine.PauseQueue(std::move(*name), std::move(*reason),
                         Answer<QueueConfig>(call.respond, PauseResponse));
}

void HandleResumeQueue(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  call.engine.ResumeQueue(std::move(*name), Answer<QueueConfig>(call.respond, ResumeResponse));
}

void HandleDeleteQueue(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  Result<bool> delete_jobs = QueryBool(call.query, "delete_jobs", false);
  if (!delete_jobs.ok()) return call.Fail(delete_jobs.status());
  call.engine.DeleteQueue(std::move(*name), *delete_jobs, AnswerNoContent(call.respond));
}

}  // namespace redrive::api
