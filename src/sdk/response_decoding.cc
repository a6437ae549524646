#include "sdk/response_decoding.h"

#include "wire/error_decode.h"
#include "wire/job_decode.h"
#include "wire/json_read.h"
#include "wire/queue_decode.h"

namespace redrive::sdk {
namespace {

using wire::ReadBoolOr;
using wire::ReadInt;
using wire::ReadIntOr;
using wire::ReadString;
using wire::ReadStringOr;
using wire::ReadTime;

Result<const boost::json::object*> AsObject(const boost::json::value& v, const char* what) {
  const auto* o = v.if_object();
  if (!o) return Status::Internal(std::string("malformed ") + what + " in the server's answer");
  return o;
}

int Int(const boost::json::object& o, std::string_view key, int fallback = 0) {
  return static_cast<int>(ReadIntOr(o, key, fallback));
}

// The dead_reason of a failure's answer (fail's and a failure ack's).
DeadReason ReadDeadReason(const boost::json::object& o) {
  if (auto d = ReadString(o, "dead_reason")) return ParseDeadReason(*d).value_or(DeadReason::kNone);
  return DeadReason::kNone;
}

std::vector<std::string> Strings(const boost::json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* v = o.if_contains(key); v && v->is_array()) {
    for (const auto& s : v->get_array()) {
      if (s.is_string()) out.emplace_back(s.get_string());
    }
  }
  return out;
}

JobStatus StatusOr(const boost::json::object& o, std::string_view key, JobStatus fallback) {
  return ParseJobStatus(ReadStringOr(o, key)).value_or(fallback);
}

DependencyMode ModeOf(const boost::json::object& o) {
  return ParseDependencyMode(ReadStringOr(o, "dependency_mode")).value_or(DependencyMode::kAll);
}

// The server's names (core/workflow.h) have no parser of their own.
std::optional<Readiness> ParseReadiness(std::string_view text) {
  for (Readiness r : {Readiness::kReady, Readiness::kWaiting, Readiness::kBlockedForever}) {
    if (text == ReadinessName(r)) return r;
  }
  return std::nullopt;
}

Result<std::vector<DependencyLink>> Links(const boost::json::object& o, std::string_view key) {
  std::vector<DependencyLink> out;
  const auto* a = o.if_contains(key);
  if (a == nullptr || !a->is_array()) return out;
  for (const auto& item : a->get_array()) {
    REDRIVE_ASSIGN_OR_RETURN(const auto* l, AsObject(item, "dependency"));
    out.push_back({.job_id = ReadStringOr(*l, "job_id"),
                   .queue_name = ReadStringOr(*l, "queue_name"),
                   .status = StatusOr(*l, "status", JobStatus::kPending)});
  }
  return out;
}

}  // namespace

Result<EnqueueResult> EnqueueResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "enqueue result"));
  return EnqueueResult{ReadStringOr(*o, "id"), ReadBoolOr(*o, "created", true)};
}

Result<BulkEnqueueResult> BulkResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "bulk result"));
  BulkEnqueueResult out;
  out.total = Int(*o, "total");
  if (const auto* s = o->if_contains("succeeded"); s && s->is_array()) {
    for (const auto& item : s->get_array()) {
      if (!item.is_object()) continue;
      const auto& i = item.get_object();
      out.succeeded.push_back(
          {Int(i, "index"), ReadStringOr(i, "job_id"), ReadBoolOr(i, "created", true)});
    }
  }
  if (const auto* f = o->if_contains("failed"); f && f->is_array()) {
    for (const auto& item : f->get_array()) {
      if (!item.is_object()) continue;
      const auto& i = item.get_object();
      // Items carry {index, error (the message), code, details}.
      boost::json::object as_error{{"code", ReadStringOr(i, "code", "VALIDATION_ERROR")},
                                   {"message", ReadStringOr(i, "error")}};
      if (const auto* d = i.if_contains("details")) as_error["details"] = *d;
      out.failed.push_back({Int(i, "index"), wire::ErrorFromJson(as_error, 400)});
    }
  }
  return out;
}

Result<ClaimedJob> ClaimedJobFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "claimed job"));
  ClaimedJob j;
  j.id = ReadStringOr(*o, "id");
  j.lease_id = ReadStringOr(*o, "lease_id");
  if (j.id.empty() || j.lease_id.empty()) {
    return Status::Internal("claimed job without id or lease_id in the server's answer");
  }
  j.queue_name = ReadStringOr(*o, "queue_name");
  if (const auto* p = o->if_contains("payload")) j.payload = *p;
  j.retry_count = Int(*o, "retry_count");
  j.max_retries = Int(*o, "max_retries");
  j.timeout_seconds = Int(*o, "timeout_seconds");
  j.lease_expires_at = ReadTime(*o, "lease_expires_at").value_or(Instant{});
  j.priority = Int(*o, "priority");
  j.tags = wire::ReadTags(*o, "tags");
  j.attempts = Int(*o, "attempts");
  return j;
}

Result<AckResult> AckResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "ack result"));
  AckResult r;
  r.id = ReadStringOr(*o, "id");
  r.success = ReadBoolOr(*o, "success", false);
  if (auto s = ReadString(*o, "status")) r.status = ParseJobStatus(*s);
  if (const auto* w = o->if_contains("will_retry"); w && w->is_bool()) r.will_retry = w->get_bool();
  if (o->contains("retry_count")) r.retry_count = Int(*o, "retry_count");
  r.scheduled_at = ReadTime(*o, "scheduled_at");
  r.dead_reason = ReadDeadReason(*o);
  if (!r.success) r.error = wire::ErrorFromJson(v, 409);
  return r;
}

Result<ClaimResult> ClaimResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "claim result"));
  ClaimResult out;
  if (const auto* jobs = o->if_contains("jobs")) {
    REDRIVE_ASSIGN_OR_RETURN(out.jobs, ArrayFromJson<ClaimedJob>(*jobs, &ClaimedJobFromJson));
  }
  if (const auto* results = o->if_contains("results")) {
    REDRIVE_ASSIGN_OR_RETURN(out.results, ArrayFromJson<AckResult>(*results, &AckResultFromJson));
  }
  return out;
}

Result<FailResult> FailResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "fail result"));
  FailResult r;
  r.will_retry = ReadBoolOr(*o, "will_retry", false);
  r.status = ParseJobStatus(ReadStringOr(*o, "status")).value_or(JobStatus::kScheduled);
  r.retry_count = Int(*o, "retry_count");
  r.scheduled_at = ReadTime(*o, "scheduled_at");
  r.dead_reason = ReadDeadReason(*o);
  return r;
}

Result<JobStatusEntry> JobStatusEntryFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "job status"));
  JobStatusEntry e;
  e.id = ReadStringOr(*o, "id");
  e.status = ParseJobStatus(ReadStringOr(*o, "status")).value_or(JobStatus::kPending);
  e.queue_name = ReadStringOr(*o, "queue_name");
  e.retry_count = Int(*o, "retry_count");
  e.created_at = ReadTime(*o, "created_at").value_or(Instant{});
  e.completed_at = ReadTime(*o, "completed_at");
  return e;
}

Result<PriorityChange> PriorityChangeFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "priority change"));
  return PriorityChange{ReadStringOr(*o, "job_id"), Int(*o, "old_priority"),
                        Int(*o, "new_priority")};
}

Result<DlqRetryResult> DlqRetryResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "DLQ retry result"));
  DlqRetryResult r;
  r.dry_run = ReadBoolOr(*o, "dry_run", false);
  r.matched_count = Int(*o, "matched_count");
  r.selected_count = Int(*o, "selected_count");
  r.retried_count = Int(*o, "retried_count");
  r.retried_jobs = Strings(*o, "retried_jobs");
  r.first_due_at = ReadTime(*o, "first_due_at");
  r.last_due_at = ReadTime(*o, "last_due_at");
  return r;
}

Result<ReleaseResult> ReleaseResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "release result"));
  ReleaseResult r;
  r.dry_run = ReadBoolOr(*o, "dry_run", false);
  r.selected_count = Int(*o, "selected_count");
  r.released_ids = Strings(*o, "released_ids");
  return r;
}

Result<QueueView> QueueViewFromJson(const boost::json::value& v) {
  QueueView q;
  REDRIVE_ASSIGN_OR_RETURN(q.config, wire::QueueConfigFromJson(v));
  const auto& o = v.get_object();
  if (const auto* c = wire::ReadObject(o, "counts")) q.counts = wire::StatusCountsFromJson(*c);
  q.oldest_deadletter_at = ReadTime(o, "oldest_deadletter_at");
  return q;
}

Result<QueueStats> QueueStatsFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "queue stats"));
  return QueueStats{ReadStringOr(*o, "queue_name"), wire::StatusCountsFromJson(*o),
                    ReadTime(*o, "oldest_deadletter_at")};
}

Result<WorkerRegistration> RegistrationFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "worker registration"));
  WorkerRegistration r;
  r.id = ReadStringOr(*o, "id");
  r.queue_name = ReadStringOr(*o, "queue_name");
  r.lease_duration_secs = Int(*o, "lease_duration_secs", 30);
  r.heartbeat_interval_secs = Int(*o, "heartbeat_interval_secs", 10);
  if (r.id.empty()) return Status::Internal("worker registration without id");
  return r;
}

Result<Workflow> WorkflowFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "workflow"));
  Workflow w;
  w.id = ReadStringOr(*o, "id");
  if (w.id.empty()) return Status::Internal("workflow without id in the server's answer");
  w.name = ReadStringOr(*o, "name");
  w.description = ReadString(*o, "description");
  if (const auto* c = wire::ReadObject(*o, "counts")) w.counts = wire::StatusCountsFromJson(*c);
  w.status = ParseWorkflowStatus(ReadStringOr(*o, "status")).value_or(WorkflowStatus::kPending);
  w.total_jobs = ReadIntOr(*o, "total_jobs", w.counts.total());
  w.completed_jobs = ReadIntOr(*o, "completed_jobs", w.counts.completed);
  w.failed_jobs = ReadIntOr(*o, "failed_jobs", FailedJobs(w.counts));
  if (const auto* p = o->if_contains("progress_percent"); p && p->is_number()) {
    w.progress_percent = p->to_number<double>();
  }
  w.created_at = ReadTime(*o, "created_at").value_or(Instant{});
  w.started_at = ReadTime(*o, "started_at");
  w.completed_at = ReadTime(*o, "completed_at");
  if (const auto* m = wire::ReadObject(*o, "metadata")) w.metadata = *m;
  return w;
}

Result<CreatedWorkflow> CreatedWorkflowFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "created workflow"));
  CreatedWorkflow out;
  out.workflow_id = ReadStringOr(*o, "workflow_id");
  if (out.workflow_id.empty()) {
    return Status::Internal("created workflow without workflow_id in the server's answer");
  }
  if (const auto* ids = o->if_contains("job_ids"); ids && ids->is_array()) {
    for (const auto& item : ids->get_array()) {
      REDRIVE_ASSIGN_OR_RETURN(const auto* i, AsObject(item, "workflow job id"));
      out.job_ids.push_back({ReadStringOr(*i, "key"), ReadStringOr(*i, "job_id")});
    }
  }
  if (const auto* w = o->if_contains("workflow")) {
    REDRIVE_ASSIGN_OR_RETURN(out.workflow, WorkflowFromJson(*w));
  } else {
    // An answer without the [ext] workflow: what the rest of it says.
    out.workflow.id = out.workflow_id;
    out.workflow.status =
        ParseWorkflowStatus(ReadStringOr(*o, "status")).value_or(WorkflowStatus::kPending);
    out.workflow.total_jobs = static_cast<long long>(out.job_ids.size());
  }
  return out;
}

Result<WorkflowJob> WorkflowJobFromJson(const boost::json::value& v) {
  WorkflowJob out;
  REDRIVE_ASSIGN_OR_RETURN(out.job, wire::JobFromJson(v));
  const auto& o = v.get_object();
  out.workflow_id = ReadStringOr(o, "workflow_id");
  out.key = ReadStringOr(o, "key");
  out.position = Int(o, "position");
  out.depends_on = Strings(o, "depends_on");
  out.dependency_mode = ModeOf(o);
  return out;
}

Result<WorkflowJobStatus> WorkflowJobStatusFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "workflow job status"));
  WorkflowJobStatus out{ReadStringOr(*o, "job_id"), ReadStringOr(*o, "key"),
                        StatusOr(*o, "status", JobStatus::kPending)};
  if (out.job_id.empty()) return Status::Internal("job status without job_id");
  return out;
}

Result<JobDependencyInfo> JobDependencyInfoFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "job dependencies"));
  JobDependencyInfo out;
  out.job_id = ReadStringOr(*o, "job_id");
  out.status = StatusOr(*o, "status", JobStatus::kPending);
  out.dependency_mode = ModeOf(*o);
  out.dependencies_met = ReadBoolOr(*o, "dependencies_met", false);
  out.readiness = ParseReadiness(ReadStringOr(*o, "readiness"))
                      .value_or(out.dependencies_met ? Readiness::kReady : Readiness::kWaiting);
  REDRIVE_ASSIGN_OR_RETURN(out.dependencies, Links(*o, "dependencies"));
  REDRIVE_ASSIGN_OR_RETURN(out.dependents, Links(*o, "dependents"));
  return out;
}

Result<AddDependenciesResult> AddDependenciesResultFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const auto* o, AsObject(v, "added dependencies"));
  AddDependenciesResult out;
  // Spooled's SDK reads `added`, its backend `dependencies_added`.
  out.added =
      static_cast<int>(ReadInt(*o, "added").value_or(ReadIntOr(*o, "dependencies_added", 0)));
  out.dependencies_met = ReadBoolOr(*o, "dependencies_met", false);
  out.status = StatusOr(*o, "status", JobStatus::kPending);
  if (const auto* edges = o->if_contains("dependencies"); edges && edges->is_array()) {
    for (const auto& item : edges->get_array()) {
      REDRIVE_ASSIGN_OR_RETURN(const auto* e, AsObject(item, "dependency"));
      out.dependencies.push_back({.job_id = ReadStringOr(*e, "job_id"),
                                  .depends_on_job_id = ReadStringOr(*e, "depends_on_job_id"),
                                  .mode = ModeOf(*e)});
    }
  }
  return out;
}

}  // namespace redrive::sdk
