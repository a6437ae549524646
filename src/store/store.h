// The store interface: what Redrive needs from a database, as operations (not
// containers). Two implementations: SqliteStore (embedded, default) and
// PgStore (several Redrive nodes sharing one PostgreSQL database). Nothing
// here may rely on state only one process holds.
//
// Time: the engine passes `now` into every call; stores never read a clock.
// Threads: a Store is thread-safe. A ReadTx/WriteTx is used by one thread.
// tests/store/store_conformance_test.cc defines the behaviour every store has.
//
// The locking contract (what makes several writers safe). On SQLite a
// WriteTx holds the database's one write lock (BEGIN IMMEDIATE) from begin
// to end, so everything below holds trivially; on PostgreSQL (READ
// COMMITTED, one transaction per request) it is what the SQL does:
//  - Every select that feeds a write locks what it returns. The Select*
//    methods of WriteTx (claims, sweeps, redrive, retention, due deliveries)
//    lock FOR UPDATE SKIP LOCKED: two nodes never pick the same row, and a
//    row another transaction is changing is skipped, not waited for.
//  - In a WriteTx, GetJob, GetJobs, GetWebhook, GetDelivery and GetSchedule lock the rows
//    they return (FOR UPDATE; GetJobs in id order, so two callers cannot
//    deadlock), and LockQueue/LockWorker lock a queue's or worker's row for a
//    read-modify-write. A concurrent writer of the same row waits, then
//    reads what this one wrote: a pause on one node is never undone by a
//    config change on another, an operator's webhook disable is never
//    reverted by a delivery outcome. GetQueue and GetWorker do not lock
//    (enqueues and claims read them on the hot path; they write neither).
//  - ApplyChange is guarded (id, status, lease_id): a write decided on a
//    stale read fails with CONFLICT instead of undoing another node's write.
//    A reaper locks the expired rows it reads (SKIP LOCKED) and re-checks
//    lease_expires_at in that read, so it never reaps a lease a heartbeat on
//    another node has just extended.
//  - Races on unique keys resolve, they never fail: two inserts of one
//    idempotency key give one job (the second caller gets created = false),
//    two EnsureQueue of one name give one queue.
//  - A transaction that loses a serialization or deadlock race fails with
//    ABORTED (ErrorCode::kAborted) and is re-run by the write executor; a
//    database that cannot be reached, or is read-only, is UNAVAILABLE.
//
// The interface is split by purpose: store_types.h (the values calls take
// and return), read_tx.h (ReadTx), write_tx.h (WriteTx), and here the
// store itself (Store, its traits, wake channel and duty leadership).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "store/write_tx.h"

namespace redrive::store {

// How the engine runs writes on a store (engine/write_executor.h).
enum class WriteModel {
  // One writer: the requests that arrive together share one transaction, a
  // savepoint each, and one commit (SQLite: one fsync serves the batch).
  kGroupCommit,
  // Many writers: each request is its own transaction, run on one of
  // `writer_connections` connections at once (PostgreSQL shares one WAL
  // flush among concurrent commits by itself).
  kTransactionPerRequest,
};

struct StoreTraits {
  WriteModel write_model = WriteModel::kGroupCommit;
  size_t writer_connections = 1;
  // Commits can be made durable apart from committing them
  // (WriteTx::CommitWithoutSync, Store::SyncCommits): the group committer
  // runs the next batch while the last one is being synced.
  bool pipelined_sync = false;
};

// Cross-node wake-ups for long-poll claims, for stores that several nodes
// share. After its commits a node publishes the queues that gained claimable
// jobs; every other node hears them and wakes its own parked claims. It is
// a hint, never the truth: a lost wake-up costs latency (the engine's slow
// re-poll is the net), never a job.
//
// Thread-safety: Publish may be called from any thread; the callbacks run on
// the channel's own thread.
class WakeChannel {
 public:
  virtual ~WakeChannel() = default;
  // Starts listening: `on_wake(queue)` for each queue another node
  // published, `on_reset()` after (re)connecting, when wake-ups may have
  // been missed (wake every waiter).
  virtual Status Start(std::function<void(const std::string& queue)> on_wake,
                       std::function<void()> on_reset) = 0;
  // Hands `queues` to the channel and returns at once. They are sent
  // outside any job transaction, coalesced (a queue published many times
  // while a send is in flight is sent once).
  virtual void Publish(const std::vector<std::string>& queues) = 0;
  // Stops both directions and joins the channel's thread. Idempotent.
  virtual void Stop() = 0;
};

// Duty leadership: which node runs each background duty ("scheduler",
// "lease-reaper", "webhook-dispatch", ...; any name). Nodes sharing a
// database run the same duties; at most one of them leads a duty at a time,
// so a duty's passes are not repeated by every node. Leadership saves work,
// it does not make a duty safe: every duty's writes stay guarded (ApplyChange,
// delivery reservations), so the rare moment two nodes both run a duty (a
// leader paused longer than its hold, then resumed) does no harm.
//
// Holding: Hold acquires a free duty and keeps the one this node holds. A
// node keeps a duty while it calls Hold for it at least once a second; one
// that stops (it died, it hangs) is replaced within seconds — how is the
// store's (SQLite: a lease that lapses after SqliteOptions::duty_lease_ttl;
// PostgreSQL: a session advisory lock, released when the session ends).
// ReleaseAll, and destroying the object, give up every duty at once, so a
// node that stops cleanly is replaced at the other nodes' next Hold.
//
// Thread-safety: thread-safe (the background loop and the webhook
// dispatcher call it from their threads). Must not outlive its store.
class Leadership {
 public:
  virtual ~Leadership() = default;  // gives up every duty, as ReleaseAll
  // True while this node leads `duty`, acquiring it if no live node holds
  // it. Cheap enough to call before every pass: a store may answer from
  // memory while its hold is fresh. `now` is the engine clock (stores never
  // read one): SQLite's leases are written and compared in it. An error
  // (the store cannot be reached) means "do not run the duty now".
  virtual Result<bool> Hold(const std::string& duty, Instant now) = 0;
  // Gives up every duty this node holds (clean shutdown). A later Hold may
  // acquire again.
  virtual void ReleaseAll() = 0;
  // How many nodes share the database now, this one included: those whose
  // leadership is live (PostgreSQL: a session holding the node lock, taken
  // with the session and given up by ReleaseAll, so a stopping node is not
  // counted). At least 1 while this node is live. The default, 1: a store
  // that writes one transaction at a time (SQLite) has nothing to divide.
  virtual Result<int> LiveNodes(Instant now) {
    (void)now;
    return 1;
  }
};

// What Store::RefreshPlannerStatistics did.
enum class PlannerStatistics {
  kNotKept,    // none a refresh would help (SQLite's store never ANALYZEs: plans follow the schema)
  kFresh,      // nothing to do: the tables have not grown enough since
  kRefreshed,  // the statistics were taken again
};

class Store {
 public:
  virtual ~Store() = default;
  virtual StoreTraits traits() const = 0;
  // Null when every writer lives in this process (the engine's own
  // notifications suffice; several processes on one SQLite file rely on the
  // re-poll).
  virtual std::unique_ptr<WakeChannel> NewWakeChannel() { return nullptr; }
  // Creates or upgrades the schema. Called once at start-up.
  virtual Status Migrate() = 0;
  // A read snapshot. Thread-safe; may be called from many threads at once.
  virtual Result<std::unique_ptr<ReadTx>> BeginRead() = 0;
  // A write transaction. With kGroupCommit the engine holds at most one at a
  // time (on SQLite, writers of other processes wait: busy timeout); with
  // kTransactionPerRequest up to writer_connections at once.
  virtual Result<std::unique_ptr<WriteTx>> BeginWrite() = 0;
  // Cheap liveness check (health/ready).
  virtual Status Ping() = 0;
  // Commit marks, for `pipelined_sync` stores (elsewhere every commit is
  // durable when it returns, and both are 0). Commits are numbered from 1
  // in the order they start. CommitMark(): the number of the latest commit
  // that started, so a read snapshot taken before this call sees no commit
  // numbered higher. SyncCommits(): makes every commit that had returned
  // when it was called durable, and returns the highest such number. A
  // failed sync is final (the store stops taking writes).
  virtual uint64_t CommitMark() const { return 0; }
  virtual Result<uint64_t> SyncCommits() { return uint64_t{0}; }
  // The database's own clock, for a store other processes share (nodes
  // compare theirs with it: engine/services/clock_check.h); unset for a
  // store on this machine, whose clock is the process's.
  virtual Result<std::optional<Instant>> DatabaseNow() { return std::optional<Instant>(); }
  // Keeps the query planner's statistics of the tables that grow with the
  // jobs in step with their size, so that no statement keeps a plan made for
  // a table a fraction of its size (PostgreSQL: a prepared statement's
  // generic plan, made when the table was small, scans it whole until the
  // statistics are taken again; autovacuum takes them only every minute or
  // so). Cheap when there is nothing to do; one node calls it for all.
  virtual Result<PlannerStatistics> RefreshPlannerStatistics() {
    return PlannerStatistics::kNotKept;
  }
  // The duty leadership of the node `node_id` (see Leadership), obtained once
  // per engine. REQUIRES: node_id is non-empty and unique among the nodes
  // sharing the database (two objects with one id may both hold a duty).
  virtual Result<std::unique_ptr<Leadership>> NewLeadership(const std::string& node_id) = 0;
  // "sqlite 3.40.1 (WAL, synchronous=FULL)" and the like.
  virtual std::string Describe() const = 0;
};

}  // namespace redrive::store
