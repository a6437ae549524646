#include "core/throughput.h"

namespace redrive {

JobCounts& JobCounts::operator+=(const JobCounts& o) {
  enqueued += o.enqueued;
  completed += o.completed;
  failed += o.failed;
  deadlettered += o.deadlettered;
  claimed += o.claimed;
  waiting += o.waiting;
  processing += o.processing;
  return *this;
}

JobCounts JobCounts::operator-(const JobCounts& o) const {
  return {enqueued - o.enqueued,         completed - o.completed, failed - o.failed,
          deadlettered - o.deadlettered, claimed - o.claimed,     waiting - o.waiting,
          processing - o.processing};
}

Instant HourOfInterval(Instant interval_end) {
  // The interval's last instant, not its end: an interval ending on the
  // hour belongs to the hour before it.
  const Instant last = interval_end - std::chrono::microseconds(1);
  return std::chrono::floor<std::chrono::hours>(last);
}

Instant FirstHourOfLastDay(Instant now) {
  return std::chrono::floor<std::chrono::hours>(now) - std::chrono::hours(23);
}

}  // namespace redrive
