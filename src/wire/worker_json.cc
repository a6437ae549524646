#include "wire/worker_json.h"

#include "wire/job_json.h"
#include "wire/json_text.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& s) {
  if (!s) return nullptr;
  return boost::json::string(*s);
}

}  // namespace

boost::json::object WorkerToJson(const WorkerInfo& worker) {
  return {{"id", worker.id},
          {"organization_id", kOrganizationId},
          {"queue_name", worker.queue_name},
          {"hostname", worker.hostname},
          {"worker_type", OptionalString(worker.worker_type)},
          {"max_concurrency", worker.max_concurrency},
          {"current_jobs", worker.current_jobs},
          {"status", worker.status},
          {"metadata", EmbedJsonText(worker.metadata_json)},
          {"version", OptionalString(worker.version)},
          {"last_heartbeat", TimeToJson(worker.last_heartbeat_at)},
          {"last_heartbeat_at", TimeToJson(worker.last_heartbeat_at)},
          {"registered_at", TimeToJson(worker.registered_at)},
          {"deregistered_at", TimeToJson(worker.deregistered_at)}};
}

}  // namespace redrive::wire
