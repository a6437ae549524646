#include "store/postgres/pg_store.h"

#include <utility>

#include "store/postgres/pg_enqueue_function.h"
#include "store/postgres/pg_leadership.h"
#include "store/postgres/pg_planner_statistics.h"
#include "store/postgres/pg_read_tx.h"
#include "store/postgres/pg_schema.h"
#include "store/postgres/pg_wake_channel.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store {

using postgres::PgConnection;
using postgres::PgPool;
using postgres::PgResult;
using postgres::PooledConnection;

namespace {

// A connection of `pool` on which `begin` succeeded. An idle connection
// may have died since its last use (a server restart): it is dropped and
// the next one tried, so a restart costs no request that starts after it.
struct Begun {
  PooledConnection conn;
  PgResult result;  // of the begin's last statement
};

// `begin` runs the begin on a connection: a string of statements (the
// simple query protocol), or a function.
Result<PgResult> RunBegin(PgConnection& conn, const char* begin) { return conn.Exec(begin); }
Result<PgResult> RunBegin(PgConnection& conn, Result<PgResult> (*begin)(PgConnection&)) {
  return begin(conn);
}

template <typename BeginT>
Result<Begun> AcquireAndBegin(PgPool& pool, BeginT begin) {
  Status last;
  for (size_t attempt = 0; attempt <= pool.capacity(); ++attempt) {
    REDRIVE_ASSIGN_OR_RETURN(PooledConnection conn, pool.Acquire());
    auto r = RunBegin(*conn, begin);
    if (r.ok()) return Begun{std::move(conn), std::move(*r)};
    last = r.status();
    if (conn->healthy()) return last;  // not a lost connection: no retry
  }
  return last;
}

}  // namespace

Result<std::unique_ptr<PgStore>> PgStore::Open(const std::string& url, PgOptions options) {
  postgres::PgConnectOptions connect{options.connect_timeout};
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> first,
                           PgConnection::Connect(url, connect));
  std::string description = "postgresql " + first->ServerVersion() + " on " + first->Where() +
                            " (pool " + std::to_string(options.pool_size) + ")";
  std::unique_ptr<PgStore> store(new PgStore(url, options, std::move(description)));
  store->writers_.AddIdle(std::move(first));
  return store;
}

PgStore::PgStore(std::string url, PgOptions options, std::string description)
    : url_(std::move(url)),
      options_(options),
      description_(std::move(description)),
      write_health_(options_.commit_stall_after),
      writers_(url_, options_.pool_size, {options_.connect_timeout}, options_.acquire_timeout),
      readers_(url_, options_.read_pool_size, {options_.connect_timeout},
               options_.acquire_timeout) {}

PgStore::~PgStore() = default;

std::unique_ptr<WakeChannel> PgStore::NewWakeChannel() {
  postgres::WakeChannelOptions options;
  options.connect_timeout = options_.connect_timeout;
  return std::make_unique<postgres::PgWakeChannel>(url_, options);
}

Result<std::unique_ptr<Leadership>> PgStore::NewLeadership(const std::string& node_id) {
  if (node_id.empty()) return Status::Internal("NewLeadership: empty node id");
  postgres::PgLeadershipOptions options;
  options.connect.connect_timeout = options_.connect_timeout;
  return std::unique_ptr<Leadership>(new postgres::PgLeadership(url_, node_id, options));
}

Status PgStore::Migrate() {
  Status st;
  for (size_t attempt = 0; attempt <= writers_.capacity(); ++attempt) {
    REDRIVE_ASSIGN_OR_RETURN(PooledConnection conn, writers_.Acquire());
    st = postgres::PgMigrate(*conn);
    if (st.ok()) st = postgres::PgInstallFunctions(*conn, options_.limits);
    if (st.ok() || conn->healthy()) return st;
  }
  return st;
}

Result<std::unique_ptr<ReadTx>> PgStore::BeginRead() {
  REDRIVE_ASSIGN_OR_RETURN(Begun begun, AcquireAndBegin(readers_, postgres::PgReadTx::kBegin));
  return std::unique_ptr<ReadTx>(new postgres::PgReadTx(std::move(begun.conn)));
}

Result<std::unique_ptr<WriteTx>> PgStore::BeginWrite() {
  REDRIVE_ASSIGN_OR_RETURN(Begun begun, AcquireAndBegin(writers_, &postgres::PgWriteTx::Begin));
  std::optional<int64_t> version;
  if (begun.result.rows() == 1) version = begun.result.Int64(0, 0);
  return std::unique_ptr<WriteTx>(
      new postgres::PgWriteTx(std::move(begun.conn), version, write_health_));
}

Status PgStore::Ping() {
  // One round trip on a read connection; a dead idle one is replaced. A
  // standby answers reads but takes no writes (a connection made before
  // a failover's demotion, or a url without target_session_attrs).
  REDRIVE_ASSIGN_OR_RETURN(Begun begun, AcquireAndBegin(readers_, "SELECT pg_is_in_recovery()"));
  if (begun.result.String(0, 0) == "t") {
    return Status::Unavailable("postgresql on " + begun.conn->Where() +
                               " is a standby (in recovery): it takes no writes");
  }
  Status health = write_health_.Check(std::chrono::steady_clock::now());
  if (health.ok() || !write_health_.failing()) return health;
  // The latest write could not commit. A probe write tells whether writes
  // commit again; an idle node has no other.
  {
    REDRIVE_ASSIGN_OR_RETURN(Begun begun, AcquireAndBegin(writers_, &postgres::PgWriteTx::Begin));
    postgres::PgWriteTx probe(std::move(begun.conn), std::nullopt, write_health_);
    // Either outcome lands in write_health_.
    if (probe.WriteProbe().ok()) (void)probe.Commit();
  }
  return write_health_.Check(std::chrono::steady_clock::now());
}

Result<std::optional<Instant>> PgStore::DatabaseNow() {
  // clock_timestamp(): the time now, not the transaction's start.
  REDRIVE_ASSIGN_OR_RETURN(
      Begun begun,
      AcquireAndBegin(readers_,
                      "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint"));
  return std::optional<Instant>(InstantFromMicros(begun.result.Int64(0, 0)));
}

Result<PlannerStatistics> PgStore::RefreshPlannerStatistics() {
  REDRIVE_ASSIGN_OR_RETURN(Begun begun,
                           AcquireAndBegin(readers_, postgres::kPlannerStatisticsCheck));
  return postgres::RefreshStalePlannerStatistics(*begun.conn, begun.result);
}

std::string PgStore::Describe() const { return description_; }

}  // namespace redrive::store
