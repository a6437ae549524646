// Fingerprint backfill: gives the dead-lettered and quarantined jobs stored
// before error fingerprints existed (schema SQLite 19 / PostgreSQL 20) the
// fingerprint of their last_error, a bounded batch per pass. A migration
// cannot run C++ on PostgreSQL, and stores never compute a fingerprint: the
// store selects the rows (an index of exactly them, empty once done), core
// computes, the store writes each one back only if the job is unchanged.
// Until a job is filled in, the DLQ summary shows it in a class without a
// fingerprint. Runs at start-up, again at once while batches are full, then
// every `interval` (nothing to do costs one empty index probe).
#pragma once

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"

namespace redrive::engine {

class ErrorFingerprintBackfill final : public Service {
 public:
  ErrorFingerprintBackfill(Committer& committer, int batch, std::chrono::seconds interval)
      : committer_(committer), batch_(batch), interval_(interval) {}

  const char* name() const override { return "fingerprint-backfill"; }
  const char* duty() const override { return duty::kFingerprintBackfill; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  int batch_;
  std::chrono::seconds interval_;
};

}  // namespace redrive::engine
