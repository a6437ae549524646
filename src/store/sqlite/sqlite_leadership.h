// SqliteLeadership: duty leadership (store.h's Leadership) for nodes sharing
// one SQLite file, as leases in the duty_leases table: a node holds a duty
// while its row says so and has not expired. Each Hold that must touch the
// file is one short transaction of its own connection, so it works the same
// between processes as between two stores of one process.
//
//   - A free duty (no row), an expired one (expires_at <= now) or one this
//     node already holds is taken or renewed: expires_at = now + ttl.
//   - A hold renewed less than ttl/3 ago is answered from memory, so the
//     background loop may ask before every pass; a non-holder reads the row
//     (a WAL read) and writes only when the duty is free.
//   - The renewal that falls due also renews, in its transaction, every
//     other duty this node holds and was asked for within ttl/3: one commit
//     (and one fsync, holding the file's write lock) a third of the ttl for
//     all of them, not one per duty. A duty no longer asked for is not kept.
//   - ReleaseAll (and the destructor) delete this node's rows.
//   - Each commit is recorded in the store's CommitHealth: the renewals
//     keep committing on an idle node, so readiness notices a freed disk.
//     Once the store is stopped (a failed fsync), Hold refuses.
//
// Time is the caller's `now` (the engine clock), as everywhere in a store;
// nodes sharing a file must have clocks that agree to well within the ttl.
//
// Thread-safety: thread-safe (one mutex around the connection).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "store/sqlite/commit_health.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite {

class SqliteLeadership final : public Leadership {
 public:
  // Opens its own connection to `path`. REQUIRES: the schema is migrated,
  // ttl > 0; `health` outlives this object.
  static Result<std::unique_ptr<SqliteLeadership>> Open(const std::string& path,
                                                        const ConnectionOptions& options,
                                                        std::string node_id, Micros ttl,
                                                        CommitHealth& health);
  ~SqliteLeadership() override;  // ReleaseAll()

  Result<bool> Hold(const std::string& duty, Instant now) override;
  // Best effort: if the file cannot be written, the leases lapse after ttl
  // as a dead node's do.
  void ReleaseAll() override;

 private:
  SqliteLeadership(std::unique_ptr<Connection> conn, std::string node_id, Micros ttl,
                   CommitHealth& health)
      : conn_(std::move(conn)), node_id_(std::move(node_id)), ttl_(ttl), health_(health) {}

  // True when another node holds `duty` at `now` (no write needed to say no).
  Result<bool> HeldByOther(const std::string& duty, Instant now);
  // Takes or renews `duty` in one write transaction, with the other duties
  // in use (above); true if this node holds it. Updates their renewed_at.
  Result<bool> TakeOrRenew(const std::string& duty, Instant now);

  std::mutex mu_;
  const std::unique_ptr<Connection> conn_;  // guarded by mu_
  const std::string node_id_;
  const Micros ttl_;
  CommitHealth& health_;
  // Every duty asked for.
  struct DutyUse {
    Instant asked_at;                   // the latest Hold
    std::optional<Instant> renewed_at;  // held: when its row was last written
  };
  std::map<std::string, DutyUse> duties_;
};

}  // namespace redrive::store::sqlite
