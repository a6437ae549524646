// Decoding of the workflow routes (POST /workflows, GET /workflows, POST
// /jobs/{id}/dependencies) into the engine's parameters. Every field is
// bounded and unknown fields are refused (VALIDATION naming the field);
// the graph itself (keys, cycles) is checked by core's
// ValidateWorkflowGraph in the engine.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "api/call.h"
#include "api/webhook_decoding.h"
#include "core/limits.h"
#include "core/status.h"
#include "engine/requests.h"

namespace redrive::api {

// Most dependencies one POST /jobs/{id}/dependencies adds (Spooled's bound).
inline constexpr size_t kMaxAddedDependencies = 100;

Result<engine::CreateWorkflowParams> DecodeCreateWorkflow(const boost::json::object& body,
                                                          const ServerLimits& limits,
                                                          const WebhookUrlRules& urls);
Result<engine::ListWorkflowsParams> DecodeListWorkflows(const QueryParams& query);
// job_id and scope are the caller's to set.
Result<engine::AddDependenciesParams> DecodeAddDependencies(const boost::json::object& body);
// POST /jobs's parent_job_id, unset when not given.
Result<std::optional<std::string>> DecodeParentJobId(const boost::json::object& body);

}  // namespace redrive::api
