// redrive.throughput_samples: each node's job counts per sampling interval
// and queue (store.h: RecordThroughput, ReadThroughput), as free functions
// over a PgConnection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/throughput.h"
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres::throughput_sql {

Result<std::vector<ThroughputPoint>> ReadThroughput(PgConnection& conn,
                                                    const std::optional<std::string>& queue_name,
                                                    Instant after);
// One statement for all the sample's queues.
Status RecordThroughput(PgConnection& conn, const ThroughputSample& sample);
Result<long long> DeleteThroughputBefore(PgConnection& conn, Instant before);

}  // namespace redrive::store::postgres::throughput_sql
