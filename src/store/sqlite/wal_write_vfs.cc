#include "store/sqlite/wal_write_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace redrive::store::sqlite {
namespace {

constexpr int kFrameHeaderSize = 24;  // SQLite's WAL file format
// Past this many buffered bytes a large transaction's frames are written
// before the next frame is taken (a page is at most 64 KiB).
constexpr size_t kMaxBuffered = size_t{4} << 20;
// The unix VFS writes at most 128 KiB - 1 bytes a call (seekAndWriteFd
// masks the size with 0x1ffff): larger buffers go in pieces of 31 pages.
constexpr size_t kMaxWrite = 0x1f000;

// A frame header's bytes 4-7: the database's size in pages after the
// commit, for the commit frame; zero for every other frame.
bool IsCommitFrameHeader(const void* header) {
  const auto* b = static_cast<const unsigned char*>(header);
  return (b[4] | b[5] | b[6] | b[7]) != 0;
}

// What a WAL file of the shim's holds: the frames written but not yet handed
// on, which start at `offset` in the file.
struct Pending {
  std::mutex mu;
  std::vector<unsigned char> bytes;  // guarded by mu
  sqlite3_int64 offset = 0;          // guarded by mu
  // Where the page of the last buffered frame header goes; -1: no header
  // waits for its page.
  sqlite3_int64 page_at = -1;  // guarded by mu
  bool commit_frame = false;   // guarded by mu: that header's frame commits
};

// The shim's file: the header below, then the VFS underneath's own file.
// Only the WAL is wrapped; other files are the underlying VFS's as they are.
struct WalFile {
  sqlite3_file base;  // base.pMethods = &kWalMethods
  sqlite3_file* real;
  Pending* pending;  // owned; deleted by Close
};

WalFile& Of(sqlite3_file* f) { return *reinterpret_cast<WalFile*>(f); }
sqlite3_file* Real(sqlite3_file* f) { return Of(f).real; }

// Under p.mu: hands the buffered bytes on to the real file.
int Flush(sqlite3_file* f, Pending& p) {
  p.page_at = -1;
  int rc = SQLITE_OK;
  for (size_t at = 0; at < p.bytes.size() && rc == SQLITE_OK; at += kMaxWrite) {
    const size_t n = std::min(kMaxWrite, p.bytes.size() - at);
    rc = Real(f)->pMethods->xWrite(Real(f), p.bytes.data() + at, static_cast<int>(n),
                                   p.offset + static_cast<sqlite3_int64>(at));
  }
  p.bytes.clear();  // on failure too: the transaction that wrote them fails
  return rc;
}

int FlushNow(sqlite3_file* f) {
  Pending& p = *Of(f).pending;
  std::lock_guard<std::mutex> lock(p.mu);
  return Flush(f, p);
}

void Append(Pending& p, const void* buf, int n, sqlite3_int64 off) {
  if (p.bytes.empty()) p.offset = off;
  const auto* b = static_cast<const unsigned char*>(buf);
  p.bytes.insert(p.bytes.end(), b, b + n);
}

int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  Pending& p = *Of(f).pending;
  std::lock_guard<std::mutex> lock(p.mu);
  if (n == kFrameHeaderSize) {
    // A frame's header, whose page comes next when SQLite appends the frame
    // (walWriteOneFrame). But SQLite also writes headers alone: after it
    // overwrote frames of the transaction in place, its commit reads each
    // frame from the first one overwritten and writes its header again with
    // the new checksums (walRewriteChecksums), the commit frame's last. A
    // read comes before each, which empties the buffer, so a commit frame's
    // header is buffered only after frames of its own transaction; alone it
    // goes straight on, and nothing stays buffered once a COMMIT returned.
    const bool commits = IsCommitFrameHeader(buf);
    const sqlite3_int64 end = p.offset + static_cast<sqlite3_int64>(p.bytes.size());
    if (p.bytes.empty() ? !commits : off == end) {
      if (p.bytes.size() >= kMaxBuffered && !commits) {
        if (int rc = Flush(f, p); rc != SQLITE_OK) return rc;
      }
      Append(p, buf, n, off);
      p.page_at = off + n;
      p.commit_frame = commits;
      return SQLITE_OK;
    }
  } else if (off == p.page_at) {
    // The page of the frame whose header is buffered.
    Append(p, buf, n, off);
    p.page_at = -1;
    return p.commit_frame ? Flush(f, p) : SQLITE_OK;
  }
  // Anything else (the WAL's own header, a page or a header rewritten in
  // place): in order, after what is buffered.
  if (int rc = Flush(f, p); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
}

int Close(sqlite3_file* f) {
  const int flushed = FlushNow(f);
  delete Of(f).pending;
  Of(f).pending = nullptr;
  const int rc = Real(f)->pMethods->xClose(Real(f));
  return flushed != SQLITE_OK ? flushed : rc;
}
int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  if (int rc = FlushNow(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (int rc = FlushNow(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (int rc = FlushNow(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  if (int rc = FlushNow(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  if (int rc = FlushNow(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}

// Version 1: SQLite maps no memory of a WAL file and keeps the WAL index
// (xShm*) with the database file, which the shim leaves as it is.
constexpr sqlite3_io_methods kWalMethods = {
    .iVersion = 1,
    .xClose = &Close,
    .xRead = &Read,
    .xWrite = &Write,
    .xTruncate = &Truncate,
    .xSync = &Sync,
    .xFileSize = &FileSize,
    .xLock = &Lock,
    .xUnlock = &Unlock,
    .xCheckReservedLock = &CheckReservedLock,
    .xFileControl = &FileControl,
    .xSectorSize = &SectorSize,
    .xDeviceCharacteristics = &DeviceCharacteristics,
};

struct Shim {
  sqlite3_vfs vfs;
  sqlite3_vfs* under;
  std::string name;
};

sqlite3_vfs* Under(sqlite3_vfs* v) { return static_cast<Shim*>(v->pAppData)->under; }

int Open(sqlite3_vfs* v, const char* name, sqlite3_file* file, int flags, int* out) {
  sqlite3_vfs* under = Under(v);
  if ((flags & SQLITE_OPEN_WAL) == 0) {
    // Not the WAL: the underlying VFS's file as it is (the shim's file size
    // is larger than its own).
    return under->xOpen(under, name, file, flags, out);
  }
  WalFile& f = Of(file);
  f.real = reinterpret_cast<sqlite3_file*>(&f + 1);
  f.pending = new (std::nothrow) Pending();
  if (f.pending == nullptr) {
    f.base.pMethods = nullptr;
    return SQLITE_NOMEM;
  }
  const int rc = under->xOpen(under, name, f.real, flags, out);
  if (f.real->pMethods == nullptr) {
    // SQLite closes a file only if pMethods is set.
    delete f.pending;
    f.pending = nullptr;
    f.base.pMethods = nullptr;
    return rc;
  }
  f.base.pMethods = &kWalMethods;
  return rc;
}

}  // namespace

Result<std::string> WalWriteVfs(const std::string& base) {
  static std::mutex mu;
  static std::map<std::string, Shim*> shims;  // never freed: SQLite keeps pointers
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = shims.find(base); it != shims.end()) return it->second->name;
  sqlite3_vfs* under = sqlite3_vfs_find(base.empty() ? nullptr : base.c_str());
  if (under == nullptr) return Status::Internal("no SQLite VFS named '" + base + "'");
  auto shim = std::make_unique<Shim>();
  shim->under = under;
  shim->name = base.empty() ? "redrive-wal-write" : "redrive-wal-write+" + base;
  shim->vfs = *under;  // the calls not wrapped go straight to it
  shim->vfs.pNext = nullptr;
  shim->vfs.zName = shim->name.c_str();
  shim->vfs.pAppData = shim.get();
  shim->vfs.szOsFile = static_cast<int>(sizeof(WalFile)) + under->szOsFile;
  shim->vfs.xOpen = &Open;
  // The underlying VFS's calls take it as their first argument (a shim
  // below finds itself there), so each is called with it, not this one.
  shim->vfs.xDelete = [](sqlite3_vfs* v, const char* name, int sync_dir) {
    return Under(v)->xDelete(Under(v), name, sync_dir);
  };
  shim->vfs.xAccess = [](sqlite3_vfs* v, const char* name, int flags, int* out) {
    return Under(v)->xAccess(Under(v), name, flags, out);
  };
  shim->vfs.xFullPathname = [](sqlite3_vfs* v, const char* name, int n, char* out) {
    return Under(v)->xFullPathname(Under(v), name, n, out);
  };
  shim->vfs.xDlOpen = [](sqlite3_vfs* v, const char* name) {
    return Under(v)->xDlOpen(Under(v), name);
  };
  shim->vfs.xDlError = [](sqlite3_vfs* v, int n, char* out) {
    Under(v)->xDlError(Under(v), n, out);
  };
  shim->vfs.xDlSym = [](sqlite3_vfs* v, void* handle, const char* symbol) {
    return Under(v)->xDlSym(Under(v), handle, symbol);
  };
  shim->vfs.xDlClose = [](sqlite3_vfs* v, void* handle) { Under(v)->xDlClose(Under(v), handle); };
  shim->vfs.xRandomness = [](sqlite3_vfs* v, int n, char* out) {
    return Under(v)->xRandomness(Under(v), n, out);
  };
  shim->vfs.xSleep = [](sqlite3_vfs* v, int us) { return Under(v)->xSleep(Under(v), us); };
  shim->vfs.xCurrentTime = [](sqlite3_vfs* v, double* out) {
    return Under(v)->xCurrentTime(Under(v), out);
  };
  shim->vfs.xGetLastError = [](sqlite3_vfs* v, int n, char* out) {
    return Under(v)->xGetLastError(Under(v), n, out);
  };
  // Version 2 and 3 calls, if the underlying VFS has them (the copy above
  // left them null otherwise).
  if (under->iVersion >= 2 && under->xCurrentTimeInt64 != nullptr) {
    shim->vfs.xCurrentTimeInt64 = [](sqlite3_vfs* v, sqlite3_int64* out) {
      return Under(v)->xCurrentTimeInt64(Under(v), out);
    };
  }
  if (under->iVersion >= 3) {
    shim->vfs.xSetSystemCall = [](sqlite3_vfs* v, const char* name, sqlite3_syscall_ptr call) {
      return Under(v)->xSetSystemCall != nullptr ? Under(v)->xSetSystemCall(Under(v), name, call)
                                                 : SQLITE_NOTFOUND;
    };
    shim->vfs.xGetSystemCall = [](sqlite3_vfs* v, const char* name) {
      return Under(v)->xGetSystemCall != nullptr ? Under(v)->xGetSystemCall(Under(v), name)
                                                 : sqlite3_syscall_ptr{nullptr};
    };
    shim->vfs.xNextSystemCall = [](sqlite3_vfs* v, const char* name) {
      return Under(v)->xNextSystemCall != nullptr ? Under(v)->xNextSystemCall(Under(v), name)
                                                  : static_cast<const char*>(nullptr);
    };
  }
  if (const int rc = sqlite3_vfs_register(&shim->vfs, 0); rc != SQLITE_OK) {
    return Status::Internal("registering the SQLite VFS " + shim->name + ": " + sqlite3_errstr(rc));
  }
  Shim* registered = shim.release();
  shims.emplace(base, registered);
  return registered->name;
}

}  // namespace redrive::store::sqlite
