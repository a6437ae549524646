// Worker pruning: deletes registry entries whose last heartbeat is older than
// `keep` (offline that long), unless they still hold a lease. Runs every
// `interval`; a `keep` of zero is never constructed (the engine skips it).
#pragma once

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"

namespace redrive::engine {

class WorkerPruning final : public Service {
 public:
  // REQUIRES: keep > 0.
  WorkerPruning(Committer& committer, int batch, std::chrono::seconds keep,
                std::chrono::seconds interval)
      : committer_(committer), batch_(batch), keep_(keep), interval_(interval) {}

  const char* name() const override { return "worker-pruning"; }
  const char* duty() const override { return duty::kWorkerPruning; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  int batch_;
  std::chrono::seconds keep_;
  std::chrono::seconds interval_;
};

}  // namespace redrive::engine
