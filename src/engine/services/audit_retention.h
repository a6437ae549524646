// Audit retention: deletes operator audit entries older than `keep`
// (--audit-retention), Idempotency-Key records past their expiry, refresh
// tokens that ended or expired over kKeepEndedRefreshTokens ago
// (core/refresh_token.h), and bulk operations that finished over
// `keep_operations` ago (--operation-retention; never an unfinished one), a
// bounded batch of each per pass. Runs every `interval`.
#pragma once

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"

namespace redrive::engine {

class AuditRetention final : public Service {
 public:
  AuditRetention(Committer& committer, int batch, std::chrono::seconds keep,
                 std::chrono::seconds keep_operations, std::chrono::seconds interval)
      : committer_(committer),
        batch_(batch),
        keep_(keep),
        keep_operations_(keep_operations),
        interval_(interval) {}

  const char* name() const override { return "audit-retention"; }
  const char* duty() const override { return duty::kAuditRetention; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  int batch_;
  std::chrono::seconds keep_;
  std::chrono::seconds keep_operations_;
  std::chrono::seconds interval_;
};

}  // namespace redrive::engine
