// PgWriteHealth: whether this node's write transactions commit, for
// readiness (PgStore::Ping). PostgreSQL answering `SELECT 1` is not enough:
// a database can answer reads while it cannot commit.
//
//   - failing: the latest write transaction failed because the database
//     cannot write (class 53: disk full, out of memory, too many
//     connections; class 58: I/O errors; 25006: read-only). Cleared by the
//     next commit that succeeds, which Ping provokes itself (a probe commit),
//     so an idle node notices a freed disk without client traffic.
//   - stalled: a COMMIT has been waiting longer than `stall_after`, e.g. on
//     a synchronous standby that stopped answering (synchronous_commit
//     waits for it without a timeout). Cleared when no commit waits that
//     long any more.
//
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "core/status.h"

namespace redrive::store::postgres {

// True for the SQLSTATEs that mean "the database cannot write now".
bool IsWriteResourceError(std::string_view sqlstate);

class PgWriteHealth {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit PgWriteHealth(std::chrono::milliseconds stall_after) : stall_after_(stall_after) {}

  // Around each COMMIT: the token of CommitStarted goes to CommitFinished.
  uint64_t CommitStarted(TimePoint now);
  void CommitFinished(uint64_t token, bool committed);
  // A write transaction failed with `sqlstate`; recorded when it is one of
  // IsWriteResourceError's.
  void RecordWriteError(std::string_view sqlstate, std::string_view message);

  // OK, or UNAVAILABLE saying why not (stalled first, then failing).
  Status Check(TimePoint now) const;
  bool failing() const;

 private:
  const std::chrono::milliseconds stall_after_;
  mutable std::mutex mu_;
  uint64_t next_token_ = 0;                // guarded by mu_
  std::map<uint64_t, TimePoint> waiting_;  // token → start; guarded by mu_
  std::string failing_;                    // guarded by mu_; empty: not failing
};

}  // namespace redrive::store::postgres
