#include "store/sqlite/checkpointer.h"

#include <sqlite3.h>

#include "core/thread_name.h"

namespace redrive::store::sqlite {

Result<std::unique_ptr<Checkpointer>> Checkpointer::Start(const std::string& path,
                                                          const ConnectionOptions& options,
                                                          Connection& writer,
                                                          CommitHealth& health) {
  // Not query_only: a checkpoint writes the database file (never rows).
  ConnectionOptions own_options = options;
  own_options.writer = true;
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> own, Connection::Open(path, own_options));
  std::unique_ptr<Checkpointer> c(new Checkpointer(std::move(own), writer, health));
  // Replaces SQLite's own auto-checkpoint hook (they share the slot).
  sqlite3_wal_hook(writer.db(), &Checkpointer::WalHook, c.get());
  c->thread_ = std::thread([p = c.get()] {
    SetThreadName("rd-checkpoint");
    p->Loop();
  });
  return c;
}

Checkpointer::Checkpointer(std::unique_ptr<Connection> own, Connection& writer,
                           CommitHealth& health)
    : own_(std::move(own)), writer_(writer), health_(health) {}

Checkpointer::Copied Checkpointer::Checkpoint(sqlite3* db, const char* name) {
  Copied done;
  int rc = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, &done.log, &done.copied);
  // Only a failed fsync matters here: a checkpoint that could not copy
  // everything (a reader, a full disk) leaves the pages in the WAL, where
  // they stay durable, and is simply tried again later.
  rc = rc == SQLITE_OK ? SQLITE_OK : sqlite3_extended_errcode(db);
  if (rc == SQLITE_IOERR_FSYNC || rc == SQLITE_IOERR_DIR_FSYNC) {
    const char* file = sqlite3_db_filename(db, "main");
    health_.Record(rc, file != nullptr ? file : "", sqlite3_errmsg(db));
  }
  if (rc != SQLITE_OK) return {};
  return done;
}

Checkpointer::~Checkpointer() {
  sqlite3_wal_hook(writer_.db(), nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Checkpointer::AfterCommit Checkpointer::Next(int pages, bool running, int copied,
                                             int catch_up_from) {
  if (pages >= kWriterTakesOverPages) return AfterCommit::kWriter;
  // Frames are numbered from the WAL's start: below the threshold the WAL
  // restarted since any checkpoint ran, and what one copied counted the
  // frames of the WAL before.
  if (pages < kCheckpointPages) return AfterCommit::kForget;
  if (running) return AfterCommit::kNothing;
  const bool few_left =
      copied > 0 && copied <= pages && pages - copied <= kCatchUpPages && pages >= catch_up_from;
  return few_left ? AfterCommit::kCatchUp : AfterCommit::kBackground;
}

int Checkpointer::WalHook(void* self, sqlite3* db, const char* name, int pages) {
  auto* c = static_cast<Checkpointer*>(self);
  AfterCommit next;
  {
    std::lock_guard<std::mutex> lock(c->mu_);
    next = Next(pages, c->running_, c->copied_, c->catch_up_from_);
    if (next == AfterCommit::kForget) {
      c->copied_ = 0;
      c->catch_up_from_ = 0;
    } else if (next == AfterCommit::kBackground) {
      c->pending_pages_ = pages;
    } else if (next == AfterCommit::kCatchUp) {
      c->copied_ = 0;
    }
  }
  switch (next) {
    case AfterCommit::kBackground:
      c->cv_.notify_one();
      break;
    case AfterCommit::kWriter:
      // The background checkpoints are not keeping up: do what SQLite's
      // auto-checkpoint would, on the writer, so the WAL stays bounded.
      c->Checkpoint(db, name);
      break;
    case AfterCommit::kCatchUp: {
      // The few frames committed while the background checkpoint copied:
      // with them copied, the writer's next transaction restarts the WAL.
      const Copied done = c->Checkpoint(db, name);
      if (done.log == 0 || done.copied < done.log) {
        std::lock_guard<std::mutex> lock(c->mu_);
        c->catch_up_from_ = pages + kCheckpointPages;
      }
      break;
    }
    case AfterCommit::kForget:
    case AfterCommit::kNothing:
      break;
  }
  return SQLITE_OK;
}

void Checkpointer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || pending_pages_ > 0; });
    const bool stopping = stop_;
    pending_pages_ = 0;
    running_ = true;
    lock.unlock();
    // PASSIVE copies what it can without waiting for the writer or readers;
    // the writer restarts the WAL from its start once all of it is copied.
    const Copied done = Checkpoint(own_->db(), nullptr);
    lock.lock();
    running_ = false;
    copied_ = done.copied;
    if (stopping) return;
  }
}

}  // namespace redrive::store::sqlite
