// redrive.throughput_samples: each node's job counts per sampling interval
// and queue (store.h: RecordThroughput, ReadThroughput), and
// redrive.throughput_hourly: the same counts with the attempts' times added
// up per hour, node and queue (SumHourlyThroughput), as free functions over
// a PgConnection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/throughput.h"
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres::throughput_sql {

// The migration that adds redrive.throughput_hourly.
extern const char kHourlySchema[];

Result<std::vector<ThroughputPoint>> ReadThroughput(PgConnection& conn,
                                                    const std::optional<std::string>& queue_name,
                                                    Instant after);
// One statement for all the sample's queues, the hourly totals included.
Status RecordThroughput(PgConnection& conn, const ThroughputSample& sample);
Result<long long> DeleteThroughputBefore(PgConnection& conn, Instant before);
Result<JobCounts> SumHourly(PgConnection& conn, const std::optional<std::string>& queue_name,
                            Instant from_hour);
Result<long long> DeleteHourlyBefore(PgConnection& conn, Instant before);

}  // namespace redrive::store::postgres::throughput_sql
