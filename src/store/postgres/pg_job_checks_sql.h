// The migrations that moved the CHECK constraints of redrive.jobs off the
// table (pg_schema.cc lists them in order). PostgreSQL plans a table's CHECKs
// again at the start of every statement that writes it; a domain's checks
// are planned once per connection. Measured in docs/benchmarks.md ("Checks
// planned once", "A job's invariants as one domain").
#pragma once

namespace redrive::store::postgres::job_checks_sql {

// Version 25: the checks of single columns as the columns' domains.
extern const char kDomainsSchema[];
// Version 26: the checks across columns, and those of status and tags, as
// one domain over a row of the columns they read.
extern const char kRowSchema[];

}  // namespace redrive::store::postgres::job_checks_sql
