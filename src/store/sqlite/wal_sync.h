// WalSync: the pipelined durability of a SqliteStore (SqliteSync::kPipelined).
//
// The writer connection runs synchronous=NORMAL, so in WAL mode its COMMIT
// appends the transaction's frames to the WAL file (write(), no fsync) and
// returns; the commit is then visible to readers but not yet durable. Sync()
// fsyncs the WAL (the VFS's xSync on the writer's own WAL file handle, so a
// test VFS sees it like any other sync) and returns the number of the latest
// commit that had ended before it began: every frame of those commits was
// written before the fsync was called, so all of them are on disk. The group
// committer runs the next batch while Sync() waits on the disk, and answers a
// batch only once a Sync() covering its commit has returned
// (engine/group_committer.h). Recovery after a crash replays the WAL up to
// its last intact commit frame (WAL checksums), so a commit whose sync
// returned is replayed, and a later one that was cut short is dropped whole.
//
// Checkpoints sync as under FULL: SQLite syncs the WAL before copying its
// frames into the database and the database after, at NORMAL too (the
// checkpointer's own connection runs FULL; the writer checkpoints only to
// catch up or past the hard limit, sqlite/checkpointer.h). The header a restarted WAL gets is
// synced by SQLite before reuse and covered by the next Sync() as well,
// before any commit in the new WAL is answered.
//
// Thread-safety: CommitStarting/CommitEnded/SetWal are called by the writer
// (holding the store's writer mutex); Mark() and Sync() from any thread.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "core/status.h"
#include "store/sqlite/commit_health.h"

namespace redrive::store::sqlite {

class WalSync {
 public:
  // A failed fsync is recorded in `health` (which then stops the store).
  explicit WalSync(CommitHealth& health) : health_(health) {}

  // Around each COMMIT of the writer, whatever its outcome. `db` is the
  // writer's connection: its WAL file handle is what Sync() syncs.
  // `wrote`: the commit may have appended frames to the WAL (one that
  // changed no row appends none, and needs no fsync of its own).
  void CommitStarting() { started_.fetch_add(1, std::memory_order_acq_rel); }
  void CommitEnded(sqlite3* db, bool wrote);

  // The number of the latest commit that started (Store::CommitMark).
  uint64_t Mark() const { return started_.load(std::memory_order_acquire); }
  // Makes every commit that ended before the call durable and returns the
  // number of the latest one (Store::SyncCommits); without an fsync when
  // none of the commits since the last one wrote. After a failed fsync
  // (its own, or any other the store's health recorded), fails for good.
  Result<uint64_t> Sync();

 private:
  CommitHealth& health_;
  std::atomic<uint64_t> started_{0};
  std::atomic<uint64_t> ended_{0};
  // The number of the latest commit that wrote, stored before ended_ counts
  // it: a Sync() that reads ended_ and then this sees every commit up to
  // the ended_ it read that wrote. 1 at first: what an earlier process left
  // in the WAL is synced by the first Sync() whatever the commits wrote.
  std::atomic<uint64_t> last_written_{1};
  // The writer's WAL file, set at its first commit. SQLite keeps it open
  // for as long as the connection is open in WAL mode, i.e. as long as the
  // store (whose destructor joins every user of Sync()).
  std::atomic<sqlite3_file*> wal_{nullptr};
  std::string wal_path_;  // for errors; written once with wal_

  std::mutex sync_mu_;   // one fsync at a time
  uint64_t synced_ = 0;  // guarded by sync_mu_: the latest commit made durable
  // Guarded by sync_mu_: last_written_ as read before the latest fsync.
  uint64_t synced_written_ = 0;
};

}  // namespace redrive::store::sqlite
