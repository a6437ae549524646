// Client: bulk operations (POST/GET /api/v1/operations, .../{id}/cancel).
#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "wire/job_decode.h"
#include "wire/json_read.h"
#include "wire/operation_json.h"

namespace redrive::sdk {
namespace {

boost::json::object OperationBody(const OperationRequest& r, bool dry_run) {
  boost::json::object body{{"action", r.action}, {"selector", r.selector}};
  if (dry_run) body["dry_run"] = true;
  if (r.rate_per_second) body["rate_per_second"] = *r.rate_per_second;
  if (r.budget) body["budget"] = *r.budget;
  if (r.target_queue) body["target_queue"] = *r.target_queue;
  if (r.reason) body["reason"] = *r.reason;
  return body;
}

Result<Operation> OperationOf(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  if (o == nullptr || !o->contains("id")) {
    return Status::Internal("malformed operation in the server's answer");
  }
  return wire::OperationFromJson(*o);
}

}  // namespace

Result<Operation> Client::CreateOperation(const OperationRequest& request) {
  return impl_->Call<Operation>("POST", "/operations", OperationBody(request, false), &OperationOf);
}

Result<OperationPreview> Client::PreviewOperation(const OperationRequest& request) {
  auto v = impl_->Json("POST", "/operations", OperationBody(request, true));
  if (!v.ok()) return v.status();
  const boost::json::object* o = v->if_object();
  if (o == nullptr || !o->contains("matched_count")) {
    return Status::Internal("malformed dry run in the server's answer");
  }
  OperationPreview preview;
  preview.matched_count = wire::ReadIntOr(*o, "matched_count", 0);
  if (const boost::json::value* sample = o->if_contains("sample"); sample && sample->is_array()) {
    for (const boost::json::value& j : sample->get_array()) {
      if (auto job = wire::JobFromJson(j); job.ok()) preview.sample.push_back(std::move(*job));
    }
  }
  return preview;
}

Result<Operation> Client::GetOperation(const std::string& id) {
  return impl_->Call<Operation>("GET", PathWithId("/operations/", id), std::nullopt, &OperationOf);
}

Result<std::vector<Operation>> Client::ListOperations(int limit, int offset) {
  Query q;
  q.Add("limit", std::optional<int>(limit)).Add("offset", std::optional<int>(offset));
  return impl_->CallList<Operation>("/operations" + q.str(), &OperationOf);
}

Result<Operation> Client::CancelOperation(const std::string& id) {
  return impl_->Call<Operation>("POST", PathWithId("/operations/", id, "/cancel"),
                                boost::json::object(), &OperationOf);
}

}  // namespace redrive::sdk
