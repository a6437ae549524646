// The autoredrive_policies table (core/autoredrive.h: one policy and its
// live state per queue) and job_auto_revivals (how many times auto-redrive
// revived each job: a row only for the jobs it revived, deleted with the
// job): their SQL and the store operations on them, as free functions over a
// Connection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::autoredrive_sql {

// SQLite migration: both tables.
extern const char kSchema[];

Result<std::optional<AutoredriveRecord>> GetAutoredrive(Connection& conn,
                                                        const std::string& queue_name);
Result<std::vector<AutoredriveRecord>> ListAutoredrive(Connection& conn);

Status InsertAutoredrive(Connection& conn, const AutoredriveRecord& rec);
Status UpdateAutoredrivePolicy(Connection& conn, const AutoredrivePolicy& policy);
Status UpdateAutoredriveState(Connection& conn, const std::string& queue_name,
                              const AutoredriveState& state);
Status DeleteAutoredrive(Connection& conn, const std::string& queue_name);
Result<long long> CountAutoRevivals(Connection& conn, const std::vector<std::string>& ids);

}  // namespace redrive::store::sqlite::autoredrive_sql
