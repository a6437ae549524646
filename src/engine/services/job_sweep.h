// The sweeps that move jobs by time, all the same shape: select a bounded
// batch of jobs that are due for an event, apply the event to each in one
// group commit, and ask the store when the next one is due.
//   scheduler      — scheduled jobs whose scheduled_at passed → pending
//   lease reaper   — processing jobs whose lease expired → retry or DLQ
//   deadline sweep — pending/scheduled jobs past expires_at → DLQ (expired)
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/transition.h"
#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "store/store.h"

namespace redrive::engine {

class JobSweep final : public Service {
 public:
  using Select = std::function<Result<std::vector<Job>>(store::WriteTx&, Instant now, int limit)>;
  using NextDue = std::function<Result<std::optional<Instant>>(store::ReadTx&)>;

  // `duty` is also the service's name.
  JobSweep(const char* duty, Committer& committer, store::Store& store, int batch, Select select,
           Event event, NextDue next_due);

  const char* name() const override { return duty_; }
  const char* duty() const override { return duty_; }
  ServiceRun RunOnce(Instant now) override;

 private:
  const char* duty_;
  Committer& committer_;
  store::Store& store_;
  int batch_;
  Select select_;
  Event event_;
  NextDue next_due_;
};

std::unique_ptr<Service> MakeScheduler(Committer& c, store::Store& s, int batch);
std::unique_ptr<Service> MakeLeaseReaper(Committer& c, store::Store& s, int batch);
std::unique_ptr<Service> MakeDeadlineSweep(Committer& c, store::Store& s, int batch);

}  // namespace redrive::engine
