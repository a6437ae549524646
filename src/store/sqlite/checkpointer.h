// Moves WAL checkpoints off the commit path. SQLite normally checkpoints
// inside the COMMIT that pushes the WAL past 1000 pages, so one request in a
// thousand pays for copying the WAL into the database and fsyncing it. Here
// the writer connection only reports its WAL size (wal_hook); a thread with
// its own connection runs PASSIVE checkpoints, which never block the writer.
// If the WAL grows past a hard limit anyway (readers pinning old snapshots),
// the writer checkpoints itself as SQLite would. A checkpoint whose fsync of
// the database fails stops the store's writes (CommitHealth).
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

 private:
  Checkpointer(std::unique_ptr<Connection> own, Connection& writer, CommitHealth& health);
  // Runs a PASSIVE checkpoint on `db`; an fsync failure stops the store.
  void Checkpoint(sqlite3* db, const char* name);
  static int WalHook(void* self, sqlite3* db, const char* name, int pages);
  void Loop();

  std::unique_ptr<Connection> own_;
  Connection& writer_;
  CommitHealth& health_;
  std::mutex mu_;
  std::condition_variable cv_;
  int pending_pages_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace redrive::store::sqlite
