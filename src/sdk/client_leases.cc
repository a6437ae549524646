// Client: the worker routes that act on leases (claim, heartbeat, complete,
// fail, snooze, ack).
#include <boost/json/object.hpp>

#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "sdk/request_encoding.h"
#include "wire/json_read.h"

namespace redrive::sdk {

Result<ClaimResult> Client::Claim(const ClaimRequest& request, std::stop_token stop) {
  // The server may hold a long-poll for `wait` before answering.
  auto v = impl_->Json("POST", "/jobs/claim", ClaimToJson(request),
                       request.wait.value_or(std::chrono::milliseconds(0)), std::move(stop));
  if (!v.ok()) return v.status();
  return ClaimResultFromJson(*v);
}

Result<Instant> Client::Heartbeat(const std::string& job_id, const std::string& worker_id,
                                  const std::string& lease_id, int lease_duration_secs) {
  auto v = impl_->Json("POST", PathWithId("/jobs/", job_id, "/heartbeat"),
                       boost::json::object{{"worker_id", worker_id},
                                           {"lease_id", lease_id},
                                           {"lease_duration_secs", lease_duration_secs}});
  if (!v.ok()) return v.status();
  const auto* o = v->if_object();
  auto t = o ? wire::ReadTime(*o, "lease_expires_at") : std::nullopt;
  if (!t) return Status::Internal("heartbeat answer without lease_expires_at");
  return *t;
}

Status Client::Complete(const std::string& job_id, const std::string& worker_id,
                        const std::string& lease_id, const boost::json::value& result) {
  boost::json::object body{{"worker_id", worker_id}, {"lease_id", lease_id}};
  if (!result.is_null()) body["result"] = result;
  return impl_->Json("POST", PathWithId("/jobs/", job_id, "/complete"), body).status();
}

Result<FailResult> Client::Fail(const std::string& job_id, const std::string& worker_id,
                                const std::string& lease_id, const std::string& error,
                                const FailOptions& options) {
  return impl_->Call<FailResult>("POST", PathWithId("/jobs/", job_id, "/fail"),
                                 FailToJson(worker_id, lease_id, error, options),
                                 &FailResultFromJson);
}

Result<Instant> Client::Snooze(const std::string& job_id, const std::string& worker_id,
                               const std::string& lease_id, std::chrono::milliseconds delay) {
  auto v = impl_->Json(
      "POST", PathWithId("/jobs/", job_id, "/snooze"),
      boost::json::object{
          {"worker_id", worker_id}, {"lease_id", lease_id}, {"delay_ms", delay.count()}});
  if (!v.ok()) return v.status();
  const auto* o = v->if_object();
  auto t = o ? wire::ReadTime(*o, "scheduled_at") : std::nullopt;
  if (!t) return Status::Internal("snooze answer without scheduled_at");
  return *t;
}

Result<std::vector<AckResult>> Client::AckBatch(const std::string& worker_id,
                                                const std::vector<Ack>& acks) {
  boost::json::array items;
  for (const Ack& a : acks) items.push_back(AckToJson(a));
  auto v = impl_->Json("POST", "/jobs/ack",
                       boost::json::object{{"worker_id", worker_id}, {"acks", std::move(items)}});
  if (!v.ok()) return v.status();
  const auto* o = v->if_object();
  const auto* results = o ? o->if_contains("results") : nullptr;
  if (!results) return Status::Internal("ack answer without results");
  return ArrayFromJson<AckResult>(*results, &AckResultFromJson);
}

}  // namespace redrive::sdk
