// Client: the queue and worker-registry routes.
#include <boost/json/object.hpp>

#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "sdk/request_encoding.h"
#include "wire/queue_decode.h"

namespace redrive::sdk {

Result<std::vector<QueueView>> Client::ListQueues() {
  return impl_->CallList<QueueView>("/queues", &QueueViewFromJson);
}

Result<QueueView> Client::GetQueue(const std::string& name) {
  return impl_->Call<QueueView>("GET", PathWithId("/queues/", name), std::nullopt,
                                &QueueViewFromJson);
}

Result<QueueStats> Client::QueueStatsOf(const std::string& name) {
  return impl_->Call<QueueStats>("GET", PathWithId("/queues/", name, "/stats"), std::nullopt,
                                 &QueueStatsFromJson);
}

Result<QueueConfig> Client::ConfigureQueue(const std::string& name,
                                           const QueueConfigUpdate& update) {
  return impl_->Call<QueueConfig>("PUT", PathWithId("/queues/", name, "/config"),
                                  QueueConfigUpdateToJson(update), &wire::QueueConfigFromJson);
}

Result<QueueConfig> Client::PauseQueue(const std::string& name, std::optional<std::string> reason) {
  boost::json::object body;
  if (reason) body["reason"] = *reason;
  return impl_->Call<QueueConfig>("POST", PathWithId("/queues/", name, "/pause"), body,
                                  &wire::QueueConfigFromJson);
}

Result<QueueConfig> Client::ResumeQueue(const std::string& name) {
  return impl_->Call<QueueConfig>("POST", PathWithId("/queues/", name, "/resume"),
                                  boost::json::object{}, &wire::QueueConfigFromJson);
}

Status Client::DeleteQueue(const std::string& name, bool delete_jobs) {
  std::string path = PathWithId("/queues/", name, delete_jobs ? "?delete_jobs=true" : "");
  return impl_->Json("DELETE", path).status();
}

Result<WorkerRegistration> Client::RegisterWorker(const RegisterWorkerRequest& request) {
  return impl_->Call<WorkerRegistration>("POST", "/workers/register", RegisterWorkerToJson(request),
                                         &RegistrationFromJson);
}

Result<WorkerInfo> Client::WorkerHeartbeat(const std::string& worker_id,
                                           const WorkerHeartbeatRequest& request) {
  return impl_->Call<WorkerInfo>("POST", PathWithId("/workers/", worker_id, "/heartbeat"),
                                 WorkerHeartbeatToJson(request), &wire::WorkerFromJson);
}

Status Client::DeregisterWorker(const std::string& worker_id) {
  return impl_->Json("POST", PathWithId("/workers/", worker_id, "/deregister")).status();
}

Result<std::vector<WorkerInfo>> Client::ListWorkers() {
  // GET /workers answers one page; read pages until a short one.
  constexpr int kPage = 1000;
  std::vector<WorkerInfo> all;
  for (int offset = 0;; offset += kPage) {
    Query q;
    q.Add("limit", std::optional<int>(kPage)).Add("offset", std::optional<int>(offset));
    auto page = impl_->CallList<WorkerInfo>("/workers" + q.str(), &wire::WorkerFromJson);
    if (!page.ok()) return page.status();
    all.insert(all.end(), std::make_move_iterator(page->begin()),
               std::make_move_iterator(page->end()));
    if (page->size() < static_cast<size_t>(kPage)) return all;
  }
}

Result<WorkerInfo> Client::GetWorker(const std::string& worker_id) {
  return impl_->Call<WorkerInfo>("GET", PathWithId("/workers/", worker_id), std::nullopt,
                                 &wire::WorkerFromJson);
}

}  // namespace redrive::sdk
