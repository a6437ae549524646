// ReadConnectionPool: the read-only connections behind SqliteStore::BeginRead. With
// WAL, readers never block the writer nor each other, so each concurrent
// read gets its own connection: an idle one if any, else a new one.
//
// Thread-safety: Acquire and Release may be called from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/sqlite/connection.h"

namespace redrive::store::sqlite {

class ReadConnectionPool {
 public:
  // Keeps at most `max_idle` idle connections; more are closed on Release.
  ReadConnectionPool(std::string path, ConnectionOptions options, size_t max_idle);

  Result<std::unique_ptr<Connection>> Acquire();
  // Takes back a connection, which must be outside any transaction.
  void Release(std::unique_ptr<Connection> conn);

 private:
  const std::string path_;
  const ConnectionOptions options_;
  const size_t max_idle_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_
};

}  // namespace redrive::store::sqlite
