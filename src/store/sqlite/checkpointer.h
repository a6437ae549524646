// Moves WAL checkpoints off the commit path. SQLite normally checkpoints
// inside the COMMIT that pushes the WAL past 1000 pages, so one request in a
// thousand pays for copying the WAL into the database and fsyncing it. Here
// the writer connection only reports its WAL size (wal_hook); a thread with
// its own connection runs PASSIVE checkpoints, which never block the writer.
// If the WAL grows past a hard limit anyway (readers pinning old snapshots),
// the writer checkpoints itself as SQLite would. A checkpoint whose fsync of
// the database fails stops the store's writes (CommitHealth).
//
// The WAL restarts from its start only when a write transaction begins with
// every frame copied; under steady writes the background checkpoint never
// sees that (the writer commits more frames while it copies), so the WAL
// would stay past the threshold and every commit would start another
// checkpoint (with its fsyncs, beside the commits' own: 1,375 checkpoint
// fsyncs in 10 s of 500 jobs/s, the WAL at the hard limit). So once a background
// checkpoint has copied all but a few frames, the writer copies the rest
// itself after its next commit (the catch-up: a few pages and two fsyncs,
// once a cycle) and the WAL restarts at the transaction after. A catch-up
// that cannot copy everything (a reader's snapshot) is not tried again
// before the WAL has grown by another threshold, or restarted.
//
// Thread-safety: the WAL hook runs on the writer's thread (inside its
// COMMIT); the rest is internal.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/sqlite/commit_health.h"
#include "store/sqlite/connection.h"

struct sqlite3;

namespace redrive::store::sqlite {

class Checkpointer {
 public:
  // Installs the hook on `writer`; `writer` and `health` must outlive this
  // object.
  static Result<std::unique_ptr<Checkpointer>> Start(const std::string& path,
                                                     const ConnectionOptions& options,
                                                     Connection& writer, CommitHealth& health);
  ~Checkpointer();  // final checkpoint, joins

  // WAL pages between checkpoints: larger than SQLite's default 1000, so a
  // page rewritten again and again is copied to the database less often.
  static constexpr int kCheckpointPages = 4000;
  static constexpr int kWriterTakesOverPages = 20000;
  // The most frames a catch-up copies on the writer.
  static constexpr int kCatchUpPages = 512;

  // What the WAL hook does after a commit that left `pages` frames in the
  // WAL, given the background checkpoint's state: whether one is copying,
  // how many frames the last one copied (0: none to catch up on), and the
  // frames below which no catch-up is tried (after one failed).
  enum class AfterCommit {
    kForget,      // below the threshold: the WAL restarted, forget the counts
    kNothing,     // one is copying; the next starts from a later commit
    kBackground,  // start a background checkpoint
    kCatchUp,     // copy the last few frames on the writer
    kWriter,      // past the hard limit: checkpoint on the writer
  };
  static AfterCommit Next(int pages, bool running, int copied, int catch_up_from);

 private:
  // What a checkpoint left: frames in the WAL, and how many of them are
  // copied into the database (sqlite3_wal_checkpoint_v2's pnLog, pnCkpt).
  struct Copied {
    int log = 0;
    int copied = 0;
  };

  Checkpointer(std::unique_ptr<Connection> own, Connection& writer, CommitHealth& health);
  // Runs a PASSIVE checkpoint on `db`; an fsync failure stops the store.
  Copied Checkpoint(sqlite3* db, const char* name);
  static int WalHook(void* self, sqlite3* db, const char* name, int pages);
  void Loop();

  std::unique_ptr<Connection> own_;
  Connection& writer_;
  CommitHealth& health_;
  std::mutex mu_;
  std::condition_variable cv_;
  int pending_pages_ = 0;
  bool running_ = false;  // a background checkpoint is copying
  // Frames the last background checkpoint copied (0: none to catch up on).
  int copied_ = 0;
  // No catch-up before the WAL holds this many frames (after a failed one,
  // until the WAL restarts).
  int catch_up_from_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace redrive::store::sqlite
