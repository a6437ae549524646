#include "core/throughput.h"

namespace redrive {

JobCounts& JobCounts::operator+=(const JobCounts& o) {
  enqueued += o.enqueued;
  completed += o.completed;
  failed += o.failed;
  deadlettered += o.deadlettered;
  return *this;
}

JobCounts JobCounts::operator-(const JobCounts& o) const {
  return {enqueued - o.enqueued, completed - o.completed, failed - o.failed,
          deadlettered - o.deadlettered};
}

}  // namespace redrive
