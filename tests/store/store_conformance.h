// The store conformance suite: what every Store must do. Each TEST_P runs once
// per store factory registered in store_conformance_test.cc (SQLite always; a
// PostgreSQL store is added there with one line). Tests build real Job
// structs with the helpers below and use fixed instants, never the clock.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/job.h"
#include "store/store.h"

namespace redrive::store::testing {

struct StoreFactory {
  std::string name;  // test-name suffix, e.g. "sqlite"
  // A fresh, empty, migrated store.
  std::function<std::unique_ptr<Store>()> make;
};

// Test names and failure messages show the store's name, not its bytes.
inline void PrintTo(const StoreFactory& f, std::ostream* os) { *os << f.name; }

// The fixed instant `seconds` after a base time (2027-01-15T08:00:00Z).
Instant T(int64_t seconds);

// A pending job of `queue` created (and due) at `created`, with every
// required field set to a distinctive value.
Job MakeJob(const std::string& id, const std::string& queue = "emails", Instant created = T(0));
// The same job, changed into another status with the fields that go with it.
Job AsScheduled(Job job, Instant due);
Job AsProcessing(Job job, const std::string& worker, const std::string& lease,
                 Instant lease_expires);
Job AsDead(Job job, DeadReason reason, Instant dead_at);
Job AsCompleted(Job job, Instant done_at);
Job AsCancelled(Job job, Instant at);

// A UUIDv7 history id made from `seed` (the same seed, the same id). Stores
// write history ids as given: core assigns them, never a store.
std::string HistoryId(const std::string& seed);
// The "created" history entry of `job`, with the id HistoryId(job.id + "/created").
HistoryEntry CreatedEntry(const Job& job);

// The ids of `jobs`, in order.
std::vector<std::string> Ids(const std::vector<Job>& jobs);
inline std::vector<std::string> Ids(const SelectedJobs& selected) { return Ids(selected.jobs); }

// A human-readable dump of a job for failure messages.
std::string DebugString(const Job& job);

class StoreConformanceTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override;

  // Inserts the jobs (each with its created entry) in one committed transaction.
  void Insert(const std::vector<Job>& jobs);
  // A committed write of `fn`.
  void Write(const std::function<void(WriteTx&)>& fn);
  std::unique_ptr<WriteTx> BeginWrite();
  std::unique_ptr<ReadTx> BeginRead();
  Job Get(const std::string& id);
  // store_->NewLeadership(node_id); null (and a test failure) on error.
  std::unique_ptr<Leadership> NewLeadership(const std::string& node_id);

  std::unique_ptr<Store> store_;
};

}  // namespace redrive::store::testing
