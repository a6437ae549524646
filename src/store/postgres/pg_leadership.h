// PgLeadership: duty leadership (store.h, Leadership) on PostgreSQL session
// advisory locks, on one dedicated connection per node. A duty is the lock
// (kDutyLockSpace, hashtext(duty)): the two-key form, so it cannot collide
// with an application's one-key advisory locks. The server releases a
// session's locks when the session ends, so a node that dies (or loses its
// connection) frees its duties at once; the others take them at their next
// try.
//
// Held duties are answered from memory, with the session checked at most
// once per `check_interval` (a lost session holds nothing: every duty is
// dropped and retried on a new connection). A duty another node holds is
// tried at every Hold (one pg_try_advisory_lock, a few microseconds of the
// server's time), so a duty released by its leader is taken at once.
//
// Presence: the session also holds a shared advisory lock on kNodeLockSpace
// (never taken exclusively, so it never waits); LiveNodes counts its holders
// in pg_locks, which every role may read. It goes with the session, and with
// ReleaseAll (a stopping node); the next Hold takes it again.
//
// Thread-safety: thread-safe (one mutex; the queries are short).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres {

// The first key of every duty lock ("RDRV").
inline constexpr int kDutyLockSpace = 0x52445256;
// The first key of the node lock every live node holds shared ("RDRN").
inline constexpr int kNodeLockSpace = 0x5244524E;

struct PgLeadershipOptions {
  PgConnectOptions connect;
  std::chrono::milliseconds check_interval{1000};
};

class PgLeadership final : public Leadership {
 public:
  PgLeadership(std::string url, std::string node_id, PgLeadershipOptions options = {});
  ~PgLeadership() override;  // the session ends: every duty is released

  Result<bool> Hold(const std::string& duty, Instant now) override;
  void ReleaseAll() override;
  Result<int> LiveNodes(Instant now) override;

 private:
  // A live session holding the node lock, connecting if needed; drops
  // every duty if it was lost.
  Status EnsureSession(Instant now);
  void DropSession();
  // Takes the node lock if this session does not hold it.
  Status BePresent();

  const std::string url_;
  const std::string node_id_;
  const PgLeadershipOptions options_;

  std::mutex mu_;
  std::unique_ptr<PgConnection> conn_;
  Instant checked_at_{};
  std::set<std::string> held_;
  bool present_ = false;  // the session holds the node lock
};

}  // namespace redrive::store::postgres
