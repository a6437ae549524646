// Delivery retention: deletes delivered and failed webhook deliveries older
// than `keep` (pending ones stay, however old). Runs every `interval`.
#pragma once

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"

namespace redrive::engine {

class DeliveryRetention final : public Service {
 public:
  DeliveryRetention(Committer& committer, int batch, std::chrono::hours keep,
                    std::chrono::seconds interval)
      : committer_(committer), batch_(batch), keep_(keep), interval_(interval) {}

  const char* name() const override { return "delivery-retention"; }
  const char* duty() const override { return duty::kDeliveryRetention; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  int batch_;
  std::chrono::hours keep_;
  std::chrono::seconds interval_;
};

}  // namespace redrive::engine
