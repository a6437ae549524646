// ServerLock: one `redrive serve` per SQLite file. The engine's wake-ups of
// parked claims live in one process, so a second server on the same file
// would stay consistent yet never wake a claim parked on the other one (see
// docs/operations.md, "One server per SQLite file"). The lock is an
// exclusive flock() on the sidecar file `<db>.lock`, held while the object
// lives. The kernel releases it when the process ends in any way, kill -9
// included, so a stale lock file never blocks a restart. SQLite's own locks
// (fcntl, on the database and its -shm) are untouched: tools that only read
// the database, such as the sqlite3 shell or a backup, keep working.
//
// Thread-safety: immutable once acquired.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"

namespace redrive::store::sqlite {

class ServerLock {
 public:
  // Creates `<db_path>.lock` if needed and locks it without waiting.
  // UNAVAILABLE naming both files (and the holder's pid when known) if
  // another process holds it, or if the file cannot be opened.
  static Result<std::unique_ptr<ServerLock>> Acquire(const std::string& db_path);
  ~ServerLock();  // releases the lock (the file is left in place)
  ServerLock(const ServerLock&) = delete;
  ServerLock& operator=(const ServerLock&) = delete;

  const std::string& lock_path() const { return lock_path_; }

 private:
  ServerLock(std::string lock_path, int fd) : lock_path_(std::move(lock_path)), fd_(fd) {}

  const std::string lock_path_;
  const int fd_;
};

}  // namespace redrive::store::sqlite
