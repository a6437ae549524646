#include "core/queue_scope.h"

#include <algorithm>

namespace redrive {

bool QueueScope::Allows(std::string_view queue) const {
  return queues.empty() || std::find(queues.begin(), queues.end(), queue) != queues.end();
}

Status QueueScope::Check(std::string_view queue) const {
  if (Allows(queue)) return Status::Ok();
  std::string allowed;
  for (const std::string& q : queues) allowed += (allowed.empty() ? "" : ", ") + q;
  return Status(ErrorCode::kAccessDenied, "this API key may only use the queues " + allowed +
                                              ", not \"" + std::string(queue) + "\"");
}

}  // namespace redrive
