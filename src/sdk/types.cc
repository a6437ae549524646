#include "redrive/types.h"

#include "wire/json_text.h"

namespace redrive::sdk {

boost::json::value PayloadOf(const Job& job) { return wire::EmbedJsonText(job.payload); }

boost::json::value ResultOf(const Job& job) {
  if (!job.result) return nullptr;
  return wire::EmbedJsonText(*job.result);
}

Ack Ack::Complete(std::string id, std::string lease_id, boost::json::value result) {
  Ack a;
  a.id = std::move(id);
  a.lease_id = std::move(lease_id);
  a.result = std::move(result);
  return a;
}

Ack Ack::Fail(std::string id, std::string lease_id, std::string error, bool no_retry,
              std::optional<std::chrono::milliseconds> retry_after,
              std::optional<boost::json::object> details) {
  Ack a;
  a.id = std::move(id);
  a.lease_id = std::move(lease_id);
  a.error = std::move(error);
  a.no_retry = no_retry;
  a.retry_after = retry_after;
  a.details = std::move(details);
  return a;
}

}  // namespace redrive::sdk
