// The SQLite migrations of the compact job storage (versions 24 to 29):
// how a finished job's row, payload, history, lease and indexes came to take
// a few hundred bytes (docs/benchmarks.md, the "Storage" sections). Each
// comment above its SQL says what the version changed and why; the list of
// every migration is sqlite_schema.cc's.
#pragma once

#include "core/status.h"
#include "store/sqlite/connection.h"

namespace redrive::store::sqlite::compact_schema {

extern const char kV24[];  // jobs.seq keys payloads and history
extern const char kV25[];  // listing indexes without the job id
extern const char kV26[];  // a job's history packed into segments, then:
Status PackHistory(Connection& conn);
extern const char kV27[];  // a job's lease in a table of its own
extern const char kV28[];  // retention indexes by status
extern const char kV29[];  // a queue's name kept once, a job's id as 16 bytes

}  // namespace redrive::store::sqlite::compact_schema
