#include "store/postgres/pg_pool.h"

#include <utility>

namespace redrive::store::postgres {

PooledConnection::~PooledConnection() {
  if (conn_ != nullptr) pool_->Release(std::move(conn_));
}

PgPool::PgPool(std::string url, size_t capacity, PgConnectOptions connect,
               std::chrono::milliseconds acquire_timeout)
    : url_(std::move(url)),
      capacity_(capacity == 0 ? 1 : capacity),
      connect_(connect),
      acquire_timeout_(acquire_timeout) {}

PgPool::~PgPool() = default;

Result<PooledConnection> PgPool::Acquire() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    bool ready = released_.wait_for(lock, acquire_timeout_,
                                    [&] { return !idle_.empty() || open_ < capacity_; });
    if (!ready) {
      return Status::Unavailable("postgresql: all " + std::to_string(capacity_) +
                                 " connections stayed busy for " +
                                 std::to_string(acquire_timeout_.count()) + " ms");
    }
    if (!idle_.empty()) {
      std::unique_ptr<PgConnection> conn = std::move(idle_.back());
      idle_.pop_back();
      return PooledConnection(this, std::move(conn));
    }
    ++open_;  // reserved: connect outside the lock
  }
  Result<std::unique_ptr<PgConnection>> conn = PgConnection::Connect(url_, connect_);
  if (!conn.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    --open_;
    released_.notify_one();
    return conn.status();
  }
  return PooledConnection(this, std::move(*conn));
}

void PgPool::AddIdle(std::unique_ptr<PgConnection> conn) {
  std::lock_guard<std::mutex> lock(mu_);
  ++open_;
  idle_.push_back(std::move(conn));
  released_.notify_one();
}

size_t PgPool::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

void PgPool::Release(std::unique_ptr<PgConnection> conn) {
  // A connection left inside a transaction (its ROLLBACK failed) or lost
  // is closed rather than handed to the next caller.
  bool keep = conn->healthy() && !conn->InTransaction();
  if (!keep) conn.reset();  // closes it outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  if (keep) {
    idle_.push_back(std::move(conn));
  } else {
    --open_;
  }
  released_.notify_one();
}

}  // namespace redrive::store::postgres
