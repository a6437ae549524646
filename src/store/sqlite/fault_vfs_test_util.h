// FaultVfs: a SQLite VFS shim for tests that fails chosen file operations
// the way a sick disk does — an fsync answering EIO (SQLITE_IOERR_FSYNC), a
// write finding the disk full (SQLITE_FULL), the write lock held by someone
// else (SQLITE_BUSY) — and otherwise passes every call to the default VFS.
// Tests only: nothing in the product registers it. A store uses it when
// opened with SqliteOptions::vfs = FaultVfs::kName:
//
//   FaultVfs& faults = FaultVfs::Install();
//   SqliteOptions options;
//   options.vfs = FaultVfs::kName;
//   auto store = SqliteStore::Open(path, options);
//   faults.Inject(FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC, 1);
//
// One rule at a time (Inject replaces it), shared by every connection on the
// shim in the process: tests using it must not run in parallel in one
// process (CTest runs each gtest test in a process of its own).
//
// Power loss: with TrackUnsyncedWrites(true) the shim remembers, for every
// write and truncate of a database or WAL file, what the file held before,
// until an fsync of that file (by any handle) that began after it returns.
// CrashImage() then copies a database and its WAL as a power cut at that
// instant could leave them: every write not yet covered by an fsync undone.
// Opening the copy runs SQLite's crash recovery.
//
// Thread-safety: Inject, Clear and the counters may be called from any
// thread while connections use the shim.
#pragma once

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace redrive::store::sqlite::testing {

enum class FaultOp {
  kWrite,      // xWrite: e.g. SQLITE_FULL, SQLITE_IOERR_WRITE
  kSync,       // xSync: e.g. SQLITE_IOERR_FSYNC
  kWriteLock,  // taking the WAL write lock (BEGIN IMMEDIATE): SQLITE_BUSY
};
enum class FaultFile { kAny, kDatabase, kWal };

class FaultVfs {
 public:
  static constexpr const char* kName = "redrive-fault";

  // Registers the shim (once per process, not as the default VFS).
  static FaultVfs& Install() {
    static FaultVfs* vfs = [] {
      auto* v = new FaultVfs();  // lives as long as the process: SQLite keeps a pointer
      if (sqlite3_vfs_register(&v->vfs_, 0) != SQLITE_OK) std::abort();
      return v;
    }();
    return *vfs;
  }

  // From now on, calls of `op` on `file` fail with `rc`: the next `times`
  // of them, or all of them (times < 0) until Clear().
  void Inject(FaultOp op, FaultFile file, int rc, int times = -1) {
    std::lock_guard<std::mutex> lock(mu_);
    rule_ = Rule{true, op, file, rc, times};
  }
  // No rule; the counters start again from zero.
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    rule_ = Rule{};
    injected_ = 0;
    for (auto& c : calls_) c = 0;
  }
  // Records unsynced writes from now on (true), or stops and forgets them.
  void TrackUnsyncedWrites(bool on) {
    std::lock_guard<std::mutex> lock(loss_mu_);
    tracking_ = on;
    unsynced_.clear();
  }
  // Copies `db_path` and `db_path`-wal to `image_path` and `image_path`-wal
  // with every tracked write not yet synced undone, newest first, while
  // writes wait. Returns how many writes it undid, or -1 on an I/O error.
  long CrashImage(const std::string& db_path, const std::string& image_path) {
    std::lock_guard<std::mutex> lock(loss_mu_);
    long undone = 0;
    for (const char* suffix : {"", "-wal"}) {
      const std::string from = db_path + suffix;
      const std::string to = image_path + suffix;
      std::FILE* in = std::fopen(from.c_str(), "rb");
      if (in == nullptr) continue;  // no WAL yet
      std::FILE* out = std::fopen(to.c_str(), "wb");
      if (out == nullptr) {
        std::fclose(in);
        return -1;
      }
      char buf[1 << 16];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) std::fwrite(buf, 1, n, out);
      std::fclose(in);
      if (std::fclose(out) != 0) return -1;
      auto it = unsynced_.find(from);
      if (it == unsynced_.end()) continue;
      const int fd = ::open(to.c_str(), O_RDWR);
      if (fd < 0) return -1;
      for (auto undo = it->second.rbegin(); undo != it->second.rend(); ++undo, ++undone) {
        if (!undo->old_bytes.empty() &&
            ::pwrite(fd, undo->old_bytes.data(), undo->old_bytes.size(), undo->offset) < 0) {
          ::close(fd);
          return -1;
        }
        if (::ftruncate(fd, undo->old_size) != 0) {
          ::close(fd);
          return -1;
        }
      }
      ::close(fd);
    }
    return undone;
  }

  // How many calls failed by injection so far.
  int injected() const { return injected_.load(); }
  // Calls of `op` that reached the shim so far (failed ones included).
  int calls(FaultOp op) const { return calls_[static_cast<int>(op)].load(); }

 private:
  struct Rule {
    bool armed = false;
    FaultOp op = FaultOp::kWrite;
    FaultFile file = FaultFile::kAny;
    int rc = SQLITE_OK;
    int left = 0;  // < 0: unlimited
  };
  // What the shim's sqlite3_file is: our header, then the real VFS's file.
  struct File {
    sqlite3_file base;  // base.pMethods = &kMethods
    FaultFile kind;
    sqlite3_file* real;
    const char* name;  // SQLite keeps it valid until xClose; null for temp files
  };
  // What a write or truncate replaced: the bytes at `offset` and the size.
  struct Undo {
    uint64_t seq;
    sqlite3_int64 offset;
    std::string old_bytes;
    sqlite3_int64 old_size;
  };
  static const char* Name(sqlite3_file* f) { return reinterpret_cast<File*>(f)->name; }
  bool Tracks(sqlite3_file* f) const {
    return tracking_ && Name(f) != nullptr && Kind(f) != FaultFile::kAny;
  }
  // Under loss_mu_: remembers what [off, off + n) of `f` holds now.
  void RememberBefore(sqlite3_file* f, sqlite3_int64 off, sqlite3_int64 n) {
    Undo u{++seq_, off, {}, 0};
    Real(f)->pMethods->xFileSize(Real(f), &u.old_size);
    if (off < u.old_size) {
      u.old_bytes.resize(static_cast<size_t>(std::min(n, u.old_size - off)));
      Real(f)->pMethods->xRead(Real(f), u.old_bytes.data(), static_cast<int>(u.old_bytes.size()),
                               off);
    }
    unsynced_[Name(f)].push_back(std::move(u));
  }

  FaultVfs() : base_vfs_(sqlite3_vfs_find(nullptr)) {
    vfs_ = *base_vfs_;  // the calls we do not wrap go straight to it
    vfs_.pNext = nullptr;
    vfs_.zName = kName;
    vfs_.pAppData = this;
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + base_vfs_->szOsFile;
    vfs_.xOpen = &Open;
    vfs_.xDelete = [](sqlite3_vfs* v, const char* name, int sync_dir) {
      return Self(v).base_vfs_->xDelete(Self(v).base_vfs_, name, sync_dir);
    };
    vfs_.xAccess = [](sqlite3_vfs* v, const char* name, int flags, int* out) {
      return Self(v).base_vfs_->xAccess(Self(v).base_vfs_, name, flags, out);
    };
    vfs_.xFullPathname = [](sqlite3_vfs* v, const char* name, int n, char* out) {
      return Self(v).base_vfs_->xFullPathname(Self(v).base_vfs_, name, n, out);
    };
  }

  static FaultVfs& Self(sqlite3_vfs* v) { return *static_cast<FaultVfs*>(v->pAppData); }
  static FaultVfs& Self() { return Install(); }
  static sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }
  static FaultFile Kind(sqlite3_file* f) { return reinterpret_cast<File*>(f)->kind; }

  // The injected result for this call, or SQLITE_OK to let it through.
  int Decide(FaultOp op, FaultFile kind) {
    calls_[static_cast<int>(op)].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    if (!rule_.armed || rule_.op != op || rule_.left == 0) return SQLITE_OK;
    if (rule_.file != FaultFile::kAny && rule_.file != kind) return SQLITE_OK;
    if (rule_.left > 0) --rule_.left;
    injected_.fetch_add(1);
    return rule_.rc;
  }

  static int Open(sqlite3_vfs* v, const char* name, sqlite3_file* file, int flags, int* out) {
    File* f = reinterpret_cast<File*>(file);
    f->real = reinterpret_cast<sqlite3_file*>(f + 1);
    f->name = name;
    f->kind = (flags & SQLITE_OPEN_WAL)       ? FaultFile::kWal
              : (flags & SQLITE_OPEN_MAIN_DB) ? FaultFile::kDatabase
                                              : FaultFile::kAny;
    sqlite3_vfs* base = Self(v).base_vfs_;
    int rc = base->xOpen(base, name, f->real, flags, out);
    // SQLite closes a file only if pMethods is set: mirror the real one.
    f->base.pMethods = f->real->pMethods != nullptr ? &kMethods : nullptr;
    return rc;
  }

  static int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
  static int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
    return Real(f)->pMethods->xRead(Real(f), buf, n, off);
  }
  static int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
    if (int rc = Self().Decide(FaultOp::kWrite, Kind(f)); rc != SQLITE_OK) return rc;
    FaultVfs& self = Self();
    std::lock_guard<std::mutex> lock(self.loss_mu_);
    if (self.Tracks(f)) self.RememberBefore(f, off, n);
    return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
  }
  static int Truncate(sqlite3_file* f, sqlite3_int64 size) {
    FaultVfs& self = Self();
    std::lock_guard<std::mutex> lock(self.loss_mu_);
    if (self.Tracks(f)) self.RememberBefore(f, size, std::numeric_limits<int>::max());
    return Real(f)->pMethods->xTruncate(Real(f), size);
  }
  static int Sync(sqlite3_file* f, int flags) {
    if (int rc = Self().Decide(FaultOp::kSync, Kind(f)); rc != SQLITE_OK) return rc;
    FaultVfs& self = Self();
    uint64_t covers = 0;  // the writes before this fsync began
    {
      std::lock_guard<std::mutex> lock(self.loss_mu_);
      covers = self.seq_;
    }
    const int rc = Real(f)->pMethods->xSync(Real(f), flags);
    std::lock_guard<std::mutex> lock(self.loss_mu_);
    if (rc == SQLITE_OK && self.Tracks(f)) {
      auto it = self.unsynced_.find(Name(f));
      if (it != self.unsynced_.end()) {
        std::erase_if(it->second, [&](const Undo& u) { return u.seq <= covers; });
      }
    }
    return rc;
  }
  static int FileSize(sqlite3_file* f, sqlite3_int64* size) {
    return Real(f)->pMethods->xFileSize(Real(f), size);
  }
  static int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
  static int Unlock(sqlite3_file* f, int level) {
    return Real(f)->pMethods->xUnlock(Real(f), level);
  }
  static int CheckReservedLock(sqlite3_file* f, int* out) {
    return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
  }
  static int FileControl(sqlite3_file* f, int op, void* arg) {
    return Real(f)->pMethods->xFileControl(Real(f), op, arg);
  }
  static int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
  static int DeviceCharacteristics(sqlite3_file* f) {
    return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
  }
  static int ShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
    return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
  }
  static int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
    // Slot 0 of the WAL index is the write lock; a writer takes it exclusive.
    constexpr int kTake = SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE;
    if (offset == 0 && (flags & kTake) == kTake) {
      if (int rc = Self().Decide(FaultOp::kWriteLock, Kind(f)); rc != SQLITE_OK) return rc;
    }
    return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
  }
  static void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
  static int ShmUnmap(sqlite3_file* f, int del) {
    return Real(f)->pMethods->xShmUnmap(Real(f), del);
  }
  static int Fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** out) {
    return Real(f)->pMethods->xFetch(Real(f), off, n, out);
  }
  static int Unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
    return Real(f)->pMethods->xUnfetch(Real(f), off, p);
  }

  // Version 3 (shared memory for WAL, memory-mapped reads), as the default
  // unix VFS's files are.
  static constexpr sqlite3_io_methods kMethods = {
      3,
      &Close,
      &Read,
      &Write,
      &Truncate,
      &Sync,
      &FileSize,
      &Lock,
      &Unlock,
      &CheckReservedLock,
      &FileControl,
      &SectorSize,
      &DeviceCharacteristics,
      &ShmMap,
      &ShmLock,
      &ShmBarrier,
      &ShmUnmap,
      &Fetch,
      &Unfetch,
  };

  sqlite3_vfs* const base_vfs_;
  sqlite3_vfs vfs_;
  std::mutex mu_;
  Rule rule_;
  std::atomic<int> injected_{0};
  std::atomic<int> calls_[3] = {};
  // Power loss (TrackUnsyncedWrites): each file's writes no fsync covers yet.
  std::mutex loss_mu_;
  bool tracking_ = false;                              // guarded by loss_mu_
  uint64_t seq_ = 0;                                   // guarded by loss_mu_
  std::map<std::string, std::vector<Undo>> unsynced_;  // guarded by loss_mu_
};

}  // namespace redrive::store::sqlite::testing
