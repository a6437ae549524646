#include "engine/tx_context.h"

namespace redrive::engine {

namespace {
void Earliest(std::optional<Instant>& slot, std::optional<Instant> t) {
  if (t && (!slot || *t < *slot)) slot = t;
}
}  // namespace

void TxEffects::Merge(const TxEffects& o) {
  for (const auto& [q, n] : o.became_claimable) became_claimable[q] += n;
  for (const auto& [q, b] : o.wake_all) wake_all[q] = wake_all[q] || b;
  Earliest(earliest_scheduled, o.earliest_scheduled);
  Earliest(earliest_lease_expiry, o.earliest_lease_expiry);
  Earliest(earliest_deadline, o.earliest_deadline);
}

bool TxEffects::empty() const {
  return became_claimable.empty() && wake_all.empty() && !earliest_scheduled &&
         !earliest_lease_expiry && !earliest_deadline;
}

void TxContext::Track(const Job& job) {
  switch (job.status) {
    case JobStatus::kPending:
      effects.became_claimable[job.queue_name] += 1;
      break;
    case JobStatus::kScheduled:
      Earliest(effects.earliest_scheduled, job.scheduled_at);
      break;
    case JobStatus::kProcessing:
      Earliest(effects.earliest_lease_expiry, job.lease_expires_at);
      break;
    default:
      break;
  }
  if ((job.status == JobStatus::kPending || job.status == JobStatus::kScheduled)) {
    Earliest(effects.earliest_deadline, job.expires_at);
  }
}

}  // namespace redrive::engine
