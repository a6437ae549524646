// Client: the producer, job and DLQ routes.
#include <boost/json/object.hpp>

#include "core/time_format.h"
#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "sdk/request_encoding.h"
#include "wire/job_decode.h"
#include "wire/json_read.h"
#include "wire/queue_decode.h"

namespace redrive::sdk {

Result<EnqueueResult> Client::Enqueue(const EnqueueRequest& request) {
  return impl_->Call<EnqueueResult>("POST", "/jobs", EnqueueToJson(request),
                                    &EnqueueResultFromJson);
}

Result<BulkEnqueueResult> Client::EnqueueBulk(const BulkEnqueueRequest& request) {
  return impl_->Call<BulkEnqueueResult>("POST", "/jobs/bulk", BulkEnqueueToJson(request),
                                        &BulkResultFromJson);
}

Result<Job> Client::GetJob(const std::string& id) {
  return impl_->Call<Job>("GET", PathWithId("/jobs/", id), std::nullopt, &wire::JobFromJson);
}

Result<std::vector<Job>> Client::ListJobs(const ListJobsFilter& filter) {
  Query q;
  q.Add("queue_name", filter.queue_name);
  if (filter.status) q.Add("status", std::optional<std::string>(JobStatusName(*filter.status)));
  q.Add("tag", filter.tag).Add("fingerprint", filter.fingerprint);
  q.Add("limit", filter.limit).Add("offset", filter.offset);
  return impl_->CallList<Job>("/jobs" + q.str(), &wire::JobFromJson);
}

Result<std::vector<HistoryEntry>> Client::History(const std::string& id) {
  return impl_->CallList<HistoryEntry>(PathWithId("/jobs/", id, "/history"),
                                       &wire::HistoryEntryFromJson);
}

Result<std::vector<JobStatusEntry>> Client::JobStatuses(const std::vector<std::string>& ids) {
  std::string joined;
  for (const auto& id : ids) joined += (joined.empty() ? "" : ",") + id;
  return impl_->CallList<JobStatusEntry>("/jobs/status" + Query().Add("ids", joined).str(),
                                         &JobStatusEntryFromJson);
}

Result<StatusCounts> Client::Stats(const std::string& queue_name) {
  Query q;
  if (!queue_name.empty()) q.Add("queue_name", queue_name);
  auto v = impl_->Json("GET", "/jobs/stats" + q.str());
  if (!v.ok()) return v.status();
  if (!v->is_object()) return Status::Internal("malformed stats in the server's answer");
  // A missing count must not read as 0: "nothing pending" ends a drain.
  for (JobStatus s : kAllStatuses) {
    if (!wire::ReadInt(v->get_object(), JobStatusName(s))) {
      return Status::Internal("stats without a numeric " + std::string(JobStatusName(s)) +
                              " count in the server's answer");
    }
  }
  return wire::StatusCountsFromJson(v->get_object());
}

Status Client::Cancel(const std::string& id) {
  return impl_->Json("DELETE", PathWithId("/jobs/", id)).status();
}

Result<Job> Client::Retry(const std::string& id, std::optional<Instant> expires_at,
                          std::optional<std::string> budget,
                          std::optional<std::string> target_queue) {
  boost::json::object body;
  if (expires_at) body["expires_at"] = FormatTime(*expires_at);
  if (budget) body["budget"] = *budget;
  if (target_queue) body["target_queue"] = *target_queue;
  return impl_->Call<Job>("POST", PathWithId("/jobs/", id, "/retry"), body, &wire::JobFromJson);
}

Result<PriorityChange> Client::SetPriority(const std::string& id, int priority) {
  return impl_->Call<PriorityChange>("PUT", PathWithId("/jobs/", id, "/priority"),
                                     boost::json::object{{"priority", priority}},
                                     &PriorityChangeFromJson);
}

Result<Job> Client::RepairPayload(const std::string& id, const boost::json::value& payload) {
  return impl_->Call<Job>("PUT", PathWithId("/jobs/", id, "/payload"),
                          boost::json::object{{"payload", payload}}, &wire::JobFromJson);
}

Result<std::vector<Job>> Client::ListDlq(const DlqFilter& filter) {
  Query q;
  q.Add("queue_name", filter.queue_name).Add("tag", filter.tag);
  if (filter.dead_reason) {
    q.Add("dead_reason", std::optional<std::string>(DeadReasonName(*filter.dead_reason)));
  }
  q.Add("error_prefix", filter.error_prefix).Add("fingerprint", filter.fingerprint);
  q.Add("limit", filter.limit).Add("offset", filter.offset);
  return impl_->CallList<Job>("/jobs/dlq" + q.str(), &wire::JobFromJson);
}

Result<std::vector<DeadLetterGroup>> Client::DlqSummary(const DlqSummaryFilter& filter) {
  Query q;
  q.Add("queue_name", filter.queue_name).Add("tag", filter.tag);
  if (filter.dead_reason) {
    q.Add("dead_reason", std::optional<std::string>(DeadReasonName(*filter.dead_reason)));
  }
  q.Add("error_prefix", filter.error_prefix).Add("fingerprint", filter.fingerprint);
  q.Add("limit", filter.limit);
  return impl_->CallList<DeadLetterGroup>("/jobs/dlq/summary" + q.str(),
                                          &wire::DeadLetterGroupFromJson);
}

Result<DlqRetryResult> Client::RetryDlq(const DlqRetryRequest& request) {
  return impl_->Call<DlqRetryResult>("POST", "/jobs/dlq/retry", DlqRetryToJson(request),
                                     &DlqRetryResultFromJson);
}

Result<Job> Client::Release(const std::string& id, std::optional<std::string> budget,
                            std::optional<std::string> target_queue) {
  boost::json::object body;
  if (budget) body["budget"] = *budget;
  if (target_queue) body["target_queue"] = *target_queue;
  return impl_->Call<Job>("POST", PathWithId("/jobs/", id, "/release"), body, &wire::JobFromJson);
}

Result<ReleaseResult> Client::ReleaseQuarantined(const ReleaseRequest& request) {
  return impl_->Call<ReleaseResult>("POST", "/jobs/quarantine/release", ReleaseToJson(request),
                                    &ReleaseResultFromJson);
}

Result<int> Client::PurgeDlq(const DlqPurgeRequest& request) {
  auto v = impl_->Json("POST", "/jobs/dlq/purge", DlqPurgeToJson(request));
  if (!v.ok()) return v.status();
  if (!v->is_object()) return Status::Internal("malformed purge result in the server's answer");
  const boost::json::object& o = v->get_object();
  const char* count = request.dry_run ? "matched_count" : "purged_count";
  if (!o.contains(count)) return Status::Internal("malformed purge result in the server's answer");
  return static_cast<int>(wire::ReadIntOr(o, count, 0));
}

}  // namespace redrive::sdk
