// Write share: divides this node's write connections among the nodes that
// share its database. The default pool (--db-pool-size not given) is sized
// for the database, so N nodes each running all of it would run N times the
// transactions the database's cores can (three nodes of two connections on
// two cores: 0.57-0.96x one node's speed; of one each, the same speed:
// docs/benchmarks.md). Every `interval` it counts the live nodes
// (Leadership::LiveNodes) and lets the executor run WriteShare(pool, nodes)
// ops at once. A per-node service: each node sets its own share.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "engine/services/service.h"

namespace redrive::engine {

// Often enough that nodes started together agree on their shares before
// the traffic comes; one read of pg_locks each time.
inline constexpr std::chrono::seconds kWriteShareInterval{1};

// A node's share of `pool` write connections when `nodes` share the
// database: the pool divided, rounded down (the nodes together never run
// more than the pool, unless there are more nodes than it), at least one.
size_t WriteShare(size_t pool, int nodes);

// The last count and share, for /metrics: written by the service, read by
// scrapes on other threads.
class WriteShareState {
 public:
  void Set(size_t share, int nodes);
  // redrive_db_write_share and redrive_db_nodes (Prometheus text); empty
  // until the nodes were first counted (SQLite, or an explicit pool).
  std::string RenderGauge() const;

 private:
  std::atomic<long long> share_{-1};  // -1: not counted yet
  std::atomic<int> nodes_{0};
};

class WriteShareService final : public Service {
 public:
  using LiveNodes = std::function<Result<int>(Instant)>;
  using Limit = std::function<void(size_t ops)>;

  // The executor starts with all `pool` connections; `limit` sets its share.
  WriteShareService(size_t pool, LiveNodes live_nodes, Limit limit, WriteShareState& state,
                    std::chrono::seconds interval = kWriteShareInterval)
      : pool_(pool),
        live_nodes_(std::move(live_nodes)),
        limit_(std::move(limit)),
        state_(state),
        interval_(interval),
        share_(pool) {}

  const char* name() const override { return "write-share"; }
  const char* duty() const override { return nullptr; }  // every node its own
  ServiceRun RunOnce(Instant now) override;

  size_t share() const { return share_; }

 private:
  const size_t pool_;
  LiveNodes live_nodes_;
  Limit limit_;
  WriteShareState& state_;
  const std::chrono::seconds interval_;
  size_t share_;
};

}  // namespace redrive::engine
