// The queues a caller may use: a stored worker key limited to some queues
// (API keys' `queues`). The API checks it where a request names its queue
// (enqueue, claim, reading a job); the engine checks it where a request only
// names a job (heartbeat, complete, fail, ack, snooze), on the job it reads
// in the write transaction, so a scoped key that learnt another queue's job
// id and holder cannot act on it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace redrive {

struct QueueScope {
  std::vector<std::string> queues;  // empty: every queue

  bool Allows(std::string_view queue) const;
  // OK, or ACCESS_DENIED naming the queues it allows.
  Status Check(std::string_view queue) const;
};

}  // namespace redrive
