// The autoredrive_policies and job_auto_revivals tables on PostgreSQL, as
// SQLite's (sqlite/autoredrive_sql.h). In a write transaction
// (`lock`) GetAutoredrive locks its row FOR UPDATE.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::autoredrive_sql {

// PostgreSQL migration: both tables.
extern const char kSchema[];

Result<std::optional<AutoredriveRecord>> GetAutoredrive(PgConnection& conn,
                                                        const std::string& queue_name, bool lock);
Result<std::vector<AutoredriveRecord>> ListAutoredrive(PgConnection& conn);

Status InsertAutoredrive(PgConnection& conn, const AutoredriveRecord& rec);
Status UpdateAutoredrivePolicy(PgConnection& conn, const AutoredrivePolicy& policy);
Status UpdateAutoredriveState(PgConnection& conn, const std::string& queue_name,
                              const AutoredriveState& state);
Status DeleteAutoredrive(PgConnection& conn, const std::string& queue_name);
Result<long long> CountAutoRevivals(PgConnection& conn, const std::vector<std::string>& ids);

}  // namespace redrive::store::postgres::autoredrive_sql
