// The contract's response bodies → SDK types. Core types (Job, QueueConfig,
// WorkerInfo, …) decode with wire/*_decode.h; this adds the SDK's own.
// Decoders fail (INTERNAL_ERROR) only on an answer of the wrong shape.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <vector>

#include "redrive/types.h"

namespace redrive::sdk {

Result<EnqueueResult> EnqueueResultFromJson(const boost::json::value& v);
Result<BulkEnqueueResult> BulkResultFromJson(const boost::json::value& v);
Result<ClaimedJob> ClaimedJobFromJson(const boost::json::value& v);
Result<ClaimResult> ClaimResultFromJson(const boost::json::value& v);
Result<AckResult> AckResultFromJson(const boost::json::value& v);
Result<FailResult> FailResultFromJson(const boost::json::value& v);
Result<JobStatusEntry> JobStatusEntryFromJson(const boost::json::value& v);
Result<PriorityChange> PriorityChangeFromJson(const boost::json::value& v);
Result<DlqRetryResult> DlqRetryResultFromJson(const boost::json::value& v);
Result<ReleaseResult> ReleaseResultFromJson(const boost::json::value& v);
Result<QueueView> QueueViewFromJson(const boost::json::value& v);
Result<QueueStats> QueueStatsFromJson(const boost::json::value& v);
Result<WorkerRegistration> RegistrationFromJson(const boost::json::value& v);
// Workflows and dependencies (docs/api.md, "Workflows and dependencies").
Result<Workflow> WorkflowFromJson(const boost::json::value& v);
Result<CreatedWorkflow> CreatedWorkflowFromJson(const boost::json::value& v);
Result<WorkflowJob> WorkflowJobFromJson(const boost::json::value& v);
Result<WorkflowJobStatus> WorkflowJobStatusFromJson(const boost::json::value& v);
Result<JobDependencyInfo> JobDependencyInfoFromJson(const boost::json::value& v);
Result<AddDependenciesResult> AddDependenciesResultFromJson(const boost::json::value& v);

// Decodes every element of a JSON array.
template <typename T>
Result<std::vector<T>> ArrayFromJson(const boost::json::value& v,
                                     Result<T> (*decode)(const boost::json::value&)) {
  const auto* a = v.if_array();
  if (!a) return Status::Internal("expected a JSON array in the server's answer");
  std::vector<T> out;
  out.reserve(a->size());
  for (const auto& item : *a) {
    auto r = decode(item);
    if (!r.ok()) return r.status();
    out.push_back(std::move(r).value());
  }
  return out;
}

}  // namespace redrive::sdk
