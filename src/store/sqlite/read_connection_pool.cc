#include "store/sqlite/read_connection_pool.h"

#include <utility>

namespace redrive::store::sqlite {
namespace {

ConnectionOptions ReaderOptions(ConnectionOptions options) {
  options.writer = false;
  return options;
}

}  // namespace

ReadConnectionPool::ReadConnectionPool(std::string path, ConnectionOptions options, size_t max_idle)
    : path_(std::move(path)), options_(ReaderOptions(options)), max_idle_(max_idle) {}

Result<std::unique_ptr<Connection>> ReadConnectionPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Connection> conn = std::move(idle_.back());
      idle_.pop_back();
      return conn;
    }
  }
  // Opened outside the lock: opening touches the file system.
  return Connection::Open(path_, options_);
}

void ReadConnectionPool::Release(std::unique_ptr<Connection> conn) {
  if (conn == nullptr || conn->InTransaction()) return;  // closed, not reused
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < max_idle_) idle_.push_back(std::move(conn));
}

}  // namespace redrive::store::sqlite
