// Retention: deletes terminal jobs (and their history) older than their
// queue's retention for that status. Runs every `interval`.
#pragma once

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "store/store.h"

namespace redrive::engine {

class Retention final : public Service {
 public:
  Retention(Committer& committer, store::Store& store, int batch, std::chrono::seconds interval)
      : committer_(committer), store_(store), batch_(batch), interval_(interval) {}

  const char* name() const override { return "retention"; }
  const char* duty() const override { return duty::kRetention; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  store::Store& store_;
  int batch_;
  std::chrono::seconds interval_;
};

}  // namespace redrive::engine
