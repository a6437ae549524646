// The throughput_samples table: each node's job counts per sampling interval
// and queue (store.h: RecordThroughput, ReadThroughput), and the
// throughput_hourly table: the same counts with the attempts' times added up
// per hour, node and queue (SumHourlyThroughput), as free functions over a
// Connection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/throughput.h"
#include "store/sqlite/connection.h"

namespace redrive::store::sqlite::throughput_sql {

// The migration that adds throughput_hourly.
extern const char kHourlySchema[];

Result<std::vector<ThroughputPoint>> ReadThroughput(Connection& conn,
                                                    const std::optional<std::string>& queue_name,
                                                    Instant after);
Status RecordThroughput(Connection& conn, const ThroughputSample& sample);
Result<long long> DeleteThroughputBefore(Connection& conn, Instant before);
Result<JobCounts> SumHourly(Connection& conn, const std::optional<std::string>& queue_name,
                            Instant from_hour);
Result<long long> DeleteHourlyBefore(Connection& conn, Instant before);

}  // namespace redrive::store::sqlite::throughput_sql
