// The former name of the write executor, kept so that code written against
// it still reads: a `Committer&` is the WriteExecutor every write goes
// through (group commit on SQLite, a pool of transactions on PostgreSQL).
// New code names WriteExecutor (write_executor.h).
#pragma once

#include "engine/write_executor.h"

namespace redrive::engine {

using Committer = WriteExecutor;

}  // namespace redrive::engine
