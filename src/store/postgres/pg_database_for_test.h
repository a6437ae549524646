// Test helpers of the PostgreSQL store: a fresh database on the shared test
// cluster of this process, stores opened on it, and a wait for another
// session to block on a lock (how race tests know the second transaction
// is really waiting before they let the first one go).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_store.h"
#include "support/pg_cluster.h"

namespace redrive::store::postgres {

// The url of a new, empty database.
inline std::string FreshDatabaseUrl() {
  ::redrive::testing::PgCluster& cluster = ::redrive::testing::PgCluster::Shared();
  auto db = cluster.CreateUniqueDatabase("pgstore");
  if (!db.ok()) throw std::runtime_error(db.status().ToString());
  return cluster.Url(*db);
}

// A store on `url`, migrated unless told otherwise; nullptr (and a test
// failure) if it cannot be opened.
inline std::unique_ptr<PgStore> OpenStore(const std::string& url, bool migrate = true,
                                          PgOptions options = {}) {
  auto store = PgStore::Open(url, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return nullptr;
  if (migrate) {
    Status st = (*store)->Migrate();
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return std::move(*store);
}

inline std::unique_ptr<PgConnection> Connect(const std::string& url) {
  auto conn = PgConnection::Connect(url, {});
  if (!conn.ok()) throw std::runtime_error(conn.status().ToString());
  return std::move(*conn);
}

// The first column of the first row of `sql`, as text ("" if no row).
inline std::string Scalar(PgConnection& conn, const std::string& sql) {
  auto r = conn.Exec(sql);
  EXPECT_TRUE(r.ok()) << r.status().ToString() << "\n" << sql;
  if (!r.ok() || r->rows() == 0) return "";
  return r->String(0, 0);
}

// Waits (bounded) until `n` sessions of the database of `watcher` wait for
// a lock; false if they never do.
inline bool WaitForLockWaiters(PgConnection& watcher, int n = 1) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    std::string waiting = Scalar(watcher,
                                 "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                                 " current_database() AND wait_event_type = 'Lock'");
    if (waiting == std::to_string(n)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace redrive::store::postgres
