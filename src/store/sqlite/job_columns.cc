#include "store/sqlite/job_columns.h"

namespace redrive::store::sqlite {

JobColumnSet ChangedColumns(const Job& a, const Job& b) {
  JobColumnSet changed = 0;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (kJobColumns[i].differs(a, b)) changed |= ColumnBit(i);
  }
  return changed;
}

int BindColumns(Statement& stmt, const Job& job, JobColumnSet columns, int first) {
  int index = first;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (columns & ColumnBit(i)) kJobColumns[i].bind(stmt, index++, job);
  }
  return index;
}

}  // namespace redrive::store::sqlite
