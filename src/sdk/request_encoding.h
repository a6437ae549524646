// SDK request types → the JSON bodies of the contract. Unset optionals are
// left out, so the server's defaults apply.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "redrive/types.h"

namespace redrive::sdk {

boost::json::object EnqueueToJson(const EnqueueRequest& request);
boost::json::object BulkEnqueueToJson(const BulkEnqueueRequest& request);
boost::json::object AckToJson(const Ack& ack);
boost::json::object ClaimToJson(const ClaimRequest& request);
boost::json::object FailToJson(const std::string& worker_id, const std::string& lease_id,
                               const std::string& error, const FailOptions& options);
boost::json::object DlqRetryToJson(const DlqRetryRequest& request);
boost::json::object ReleaseToJson(const ReleaseRequest& request);
boost::json::object DlqPurgeToJson(const DlqPurgeRequest& request);
boost::json::object QueueConfigUpdateToJson(const QueueConfigUpdate& update);
boost::json::object RegisterWorkerToJson(const RegisterWorkerRequest& request);
boost::json::object WorkerHeartbeatToJson(const WorkerHeartbeatRequest& request);
boost::json::object CreateWorkflowToJson(const CreateWorkflowRequest& request);
// {"depends_on_job_ids": [...], "dependency_mode"?}.
boost::json::object AddDependenciesToJson(const std::vector<std::string>& depends_on,
                                          std::optional<DependencyMode> mode);

}  // namespace redrive::sdk
