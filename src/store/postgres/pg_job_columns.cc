#include "store/postgres/pg_job_columns.h"

namespace redrive::store::postgres {

// ReadPgJob names the job in its errors, so it reads the id first.
static_assert(PgJobColumnIndex("id") == 0);

PgColumnSet ChangedPgColumns(const Job& a, const Job& b) {
  PgColumnSet changed = 0;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (kPgJobColumns[i].differs(a, b)) changed |= PgColumnBit(i);
  }
  return changed;
}

void BindPgColumns(PgParams& params, const Job& job, PgColumnSet columns) {
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (columns & PgColumnBit(i)) kPgJobColumns[i].bind(params, job);
  }
}

Result<Job> ReadPgJob(const PgResult& r, int row, int first) {
  Job job;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (!kPgJobColumns[i].read(r, row, first + i, job)) {
      return Status::Internal("job " + job.id + ": stored " + kPgJobColumns[i].name +
                              " is not valid");
    }
  }
  return job;
}

}  // namespace redrive::store::postgres
