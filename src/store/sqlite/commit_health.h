// CommitHealth: what a SqliteStore's latest commits say about its disk, for
// readiness (SqliteStore::Ping) and for fail-stop.
//
//   - healthy: the latest commit succeeded (or none failed yet).
//   - failing: the latest commit failed (disk full, the write lock held too
//     long by another process, an I/O error). Writes are still tried; the
//     next one that commits makes the store healthy again. The duty-lease
//     renewals of SqliteLeadership commit every few seconds, so an idle
//     node notices a freed disk without any client traffic.
//   - stopped: an fsync failed (of the WAL at a commit, or of the database
//     at a checkpoint). After a failed fsync the kernel may have dropped the
//     dirty pages it could not write and marked them clean, so a later
//     fsync "succeeds" without the data: nothing can tell what is durable.
//     As PostgreSQL does, the store then refuses every write until the
//     process restarts (recovery replays the WAL from disk). Final.
//
// Thread-safety: thread-safe (the writer, the checkpointer and the
// leadership connection report from their threads).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "core/status.h"

namespace redrive::store::sqlite {

class CommitHealth {
 public:
  // Records the outcome of a COMMIT (or of a BEGIN that takes the write
  // lock) of the file `path`: `rc` is SQLite's extended result code and
  // `message` its error message when rc is not SQLITE_OK. Returns the
  // status the caller reports: OK for SQLITE_OK; when this failure stopped
  // the store, the fail-stop reason; otherwise UNAVAILABLE with `message`.
  Status Record(int rc, std::string_view path, std::string_view message);
  // OK when healthy; UNAVAILABLE with the reason while failing or stopped.
  Status Check() const;
  // UNAVAILABLE with the reason once stopped; OK otherwise.
  Status CheckWritable() const;
  bool stopped() const;

 private:
  mutable std::mutex mu_;
  std::string failing_;  // why the latest commit failed; empty when it did not
  std::string stopped_;  // why writes are stopped; empty until an fsync fails
};

}  // namespace redrive::store::sqlite
