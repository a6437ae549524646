// The worker registry: register, heartbeat, deregister, list, read.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "core/limits.h"
#include "wire/worker_json.h"

namespace redrive::api {
namespace {

constexpr int64_t kMaxConcurrency = 10000;
constexpr size_t kMaxNameBytes = 255;  // hostname, worker_type, version, ids
constexpr size_t kMaxStatusBytes = 32;

Result<engine::RegisterWorkerParams> DecodeRegister(const boost::json::object& body,
                                                    const ServerLimits& limits) {
  wire::FieldReader r(body);
  engine::RegisterWorkerParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.queue_name, RequiredQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(p.hostname, r.RequiredString("hostname", 1, kMaxNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(p.worker_type, r.String("worker_type", 0, kMaxNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> concurrency,
                           r.Int("max_concurrency", 1, kMaxConcurrency));
  p.max_concurrency = static_cast<int>(concurrency.value_or(1));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> metadata,
                           ObjectText(r, "metadata", limits.max_worker_metadata_bytes));
  p.metadata_json = metadata.value_or("{}");
  REDRIVE_ASSIGN_OR_RETURN(p.version, r.String("version", 0, kMaxNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(p.worker_id, r.String("worker_id", 1, kMaxNameBytes));
  return p;
}

Result<engine::WorkerHeartbeatParams> DecodeWorkerHeartbeat(const boost::json::object& body,
                                                            const ServerLimits& limits) {
  wire::FieldReader r(body);
  engine::WorkerHeartbeatParams p;
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> current,
                           r.Int("current_jobs", 0, kMaxConcurrency));
  p.current_jobs = static_cast<int>(current.value_or(0));
  REDRIVE_ASSIGN_OR_RETURN(p.status, r.String("status", 1, kMaxStatusBytes));
  REDRIVE_ASSIGN_OR_RETURN(p.metadata_json,
                           ObjectText(r, "metadata", limits.max_worker_metadata_bytes));
  return p;
}

// limit 1..1000 (default 100; larger is capped), offset >= 0: a page stays bounded while
// clients that never page (Spooled's SDK) still see every worker of a
// typical fleet.
Result<engine::ListWorkersParams> DecodeListWorkers(const QueryParams& q) {
  engine::ListWorkersParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.limit,
                           QueryLimit(q, "limit", kMaxListWorkersLimit, kDefaultListWorkersLimit));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> offset, QueryInt(q, "offset", 0, INT32_MAX));
  p.offset = static_cast<int>(offset.value_or(0));
  return p;
}

Response WorkerResponse(WorkerInfo& worker) {
  return JsonResponse(200, wire::WorkerToJson(worker));
}

}  // namespace

void HandleRegisterWorker(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::RegisterWorkerParams> p = DecodeRegister(*body, call.options.limits);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.RegisterWorker(
      std::move(*p), Answer<WorkerInfo>(call.respond, [](WorkerInfo& w) {
        return JsonResponse(
            201, boost::json::object{{"id", w.id},
                                     {"queue_name", w.queue_name},
                                     {"lease_duration_secs", kDefaultLeaseSeconds},
                                     {"heartbeat_interval_secs", kHeartbeatIntervalSeconds}});
      }));
}

void HandleWorkerHeartbeat(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::WorkerHeartbeatParams> p = DecodeWorkerHeartbeat(*body, call.options.limits);
  if (!p.ok()) return call.Fail(p.status());
  p->worker_id = call.Param("id");
  call.engine.WorkerHeartbeat(std::move(*p), Answer<WorkerInfo>(call.respond, WorkerResponse));
}

void HandleDeregisterWorker(Call& call) {
  call.engine.DeregisterWorker(call.Param("id"), AnswerNoContent(call.respond));
}

void HandleListWorkers(Call& call) {
  Result<engine::ListWorkersParams> p = DecodeListWorkers(call.query);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.ListWorkers(
      *p, Answer<std::vector<WorkerInfo>>(call.respond, [](std::vector<WorkerInfo>& workers) {
        boost::json::array out;
        for (const WorkerInfo& w : workers) out.push_back(wire::WorkerToJson(w));
        return JsonResponse(200, out);
      }));
}

void HandleGetWorker(Call& call) {
  call.engine.GetWorker(call.Param("id"), Answer<WorkerInfo>(call.respond, WorkerResponse));
}

}  // namespace redrive::api
