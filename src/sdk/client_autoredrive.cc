// Client: auto-redrive (GET /autoredrive; GET, PUT, DELETE
// /queues/{name}/autoredrive).
#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "wire/autoredrive_json.h"
#include "wire/json_read.h"

namespace redrive::sdk {
namespace {

Result<Autoredrive> AutoredriveOf(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  if (o == nullptr || !o->contains("queue_name")) {
    return Status::Internal("malformed auto-redrive policy in the server's answer");
  }
  Autoredrive out;
  out.policy = wire::AutoredrivePolicyFromJson(*o);
  out.eligible_count = wire::ReadIntOr(*o, "eligible_count", 0);
  if (const boost::json::object* state = wire::ReadObject(*o, "state")) {
    out.state = wire::AutoredriveStateFromJson(*state);
    out.batch_redriven = wire::ReadIntOr(*state, "batch_redriven", 0);
  }
  return out;
}

boost::json::object PolicyBody(const AutoredrivePolicy& p) {
  boost::json::object body{
      {"enabled", p.enabled},
      {"fingerprint", p.fingerprint},
      {"cooldown_seconds", p.cooldown.count()},
      {"max_cooldown_seconds", p.max_cooldown.count()},
      {"canary_size", p.canary_size},
      {"rate_per_second", p.rate_per_second},
      {"max_revivals_per_job", p.max_revivals_per_job},
  };
  if (p.reason) body["dead_reason"] = DeadReasonName(*p.reason);
  return body;
}

}  // namespace

Result<Autoredrive> Client::GetAutoredrive(const std::string& queue) {
  return impl_->Call<Autoredrive>("GET", PathWithId("/queues/", queue, "/autoredrive"),
                                  std::nullopt, &AutoredriveOf);
}

Result<std::vector<Autoredrive>> Client::ListAutoredrive() {
  return impl_->CallList<Autoredrive>("/autoredrive", &AutoredriveOf);
}

Result<Autoredrive> Client::SetAutoredrive(const AutoredrivePolicy& policy) {
  return impl_->Call<Autoredrive>("PUT", PathWithId("/queues/", policy.queue_name, "/autoredrive"),
                                  PolicyBody(policy), &AutoredriveOf);
}

Status Client::DeleteAutoredrive(const std::string& queue) {
  return impl_->Json("DELETE", PathWithId("/queues/", queue, "/autoredrive")).status();
}

}  // namespace redrive::sdk
