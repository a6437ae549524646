// WalWriteVfs: a SQLite VFS shim that hands a commit's WAL frames to the
// file system in one write() instead of two a page.
//
// SQLite appends a frame to the WAL as two writes: its 24-byte header, then
// the page. A commit of 12 pages is 24 pwrite() calls on the writer's thread,
// each a system call with the file's lock and page-cache walk, and on this
// kind of VM over a microsecond of CPU apiece (docs/benchmarks.md,
// "The WAL's frames in one write"). The shim keeps the frames of the
// transaction being written in a buffer and writes them with one call once
// the page of a commit frame (a frame header whose "database size after
// commit" field is not zero) has come, before SQLite's write of that page
// returns. So when SQLite goes on to publish the commit in the WAL index,
// where other connections find it, its frames are in the file, as before;
// a failed write is still that of the commit's last page, and the COMMIT
// fails with it.
//
// Every other operation on the WAL (a read, a sync, its size, a truncate, a
// file control, a close, a write that is not the next frame's header or
// page) first writes what is buffered, so the file is as SQLite left it
// whenever anyone looks. Frames buffered without a commit frame after them
// (SQLite spills a large transaction's pages before its commit) are visible
// to no other connection until that commit, and are written before the
// writer's own read of them. Files other than the WAL, and writes of
// shapes other than those above, go straight to the VFS underneath.
//
// Durability is unchanged: nothing was durable before an fsync, and an fsync
// (SQLite's, or WalSync's through this file's xSync) writes the buffer first
// and covers every commit that ended before it began.
//
// Thread-safety: each WAL file's buffer has a mutex, since WalSync calls the
// writer's xSync from the syncer thread while the writer may be writing.
#pragma once

#include <string>

#include "core/status.h"

namespace redrive::store::sqlite {

// The name of the shim stacked on the VFS named `base` (empty: SQLite's
// default), registered (not as the default) on first use. INTERNAL if no
// VFS is named `base`.
Result<std::string> WalWriteVfs(const std::string& base);

}  // namespace redrive::store::sqlite
