#include "store/sqlite/wal_sync.h"

namespace redrive::store::sqlite {

void WalSync::CommitEnded(sqlite3* db, bool wrote) {
  if (wal_.load(std::memory_order_acquire) == nullptr) {
    sqlite3_file* wal = nullptr;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) == SQLITE_OK &&
        wal != nullptr && wal->pMethods != nullptr) {
      const char* file = sqlite3_db_filename(db, "main");
      wal_path_ = std::string(file != nullptr ? file : "") + "-wal";
      wal_.store(wal, std::memory_order_release);
    }
  }
  // Commits end one at a time (the writer's), so this one is ended_ + 1.
  if (wrote) {
    last_written_.store(ended_.load(std::memory_order_acquire) + 1, std::memory_order_release);
  }
  ended_.fetch_add(1, std::memory_order_acq_rel);
}

Result<uint64_t> WalSync::Sync() {
  std::lock_guard<std::mutex> lock(sync_mu_);
  // Once any fsync of the file failed (this one's before, a COMMIT's own at
  // a WAL restart, or a checkpoint's), a later one that "succeeds" proves
  // nothing: the store's health says so for good.
  REDRIVE_RETURN_IF_ERROR(health_.CheckWritable());
  // Every write of these commits happened before their CommitEnded, hence
  // before the fsync below is called.
  const uint64_t covered = ended_.load(std::memory_order_acquire);
  if (covered <= synced_) return synced_;
  const uint64_t written = last_written_.load(std::memory_order_acquire);
  if (written <= synced_written_) {
    // Every commit since the last fsync wrote nothing: they are as durable
    // as the commits before them.
    synced_ = covered;
    return covered;
  }
  // Set by the first CommitEnded, which came before `covered` > 0.
  sqlite3_file* wal = wal_.load(std::memory_order_acquire);
  const int rc = wal != nullptr ? wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL) : SQLITE_IOERR;
  if (rc != SQLITE_OK) {
    // Recorded as the failed fsync it is, whatever the code: the store
    // stops taking writes, and every later Sync fails above.
    return health_.Record(SQLITE_IOERR_FSYNC, wal != nullptr ? wal_path_ : "WAL",
                          "fsync of the WAL failed (SQLite error " + std::to_string(rc) + ")");
  }
  synced_ = covered;
  synced_written_ = written;
  return covered;
}

}  // namespace redrive::store::sqlite
