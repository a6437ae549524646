// Run-history retention of schedules: deletes schedule runs beyond the
// newest `keep` of their schedule or older than `max_age`
// (--schedule-history-keep, --schedule-history-retention), a bounded batch
// per pass. Part of the retention duty; runs every `interval`.
#pragma once

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"

namespace redrive::engine {

class ScheduleRunRetention final : public Service {
 public:
  ScheduleRunRetention(Committer& committer, int batch, int keep, std::chrono::seconds max_age,
                       std::chrono::seconds interval)
      : committer_(committer), batch_(batch), keep_(keep), max_age_(max_age), interval_(interval) {}

  const char* name() const override { return "schedule-run-retention"; }
  const char* duty() const override { return duty::kRetention; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  int batch_;
  int keep_;
  std::chrono::seconds max_age_;
  std::chrono::seconds interval_;
};

}  // namespace redrive::engine
