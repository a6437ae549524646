// What a request's writes cause besides the rows themselves — metric events
// counted, webhook deliveries put in the outbox, and whatever comes next
// (realtime events, an audit log) — as hooks the write executor calls inside
// each request's transaction (its savepoint, with group commit). The write executor knows only this
// interface; what an outcome means for each hook is read from core's outcome table.
//
// Thread-safety: a PooledExecutor calls hooks from several threads at once,
// each with its own transaction and TxContext. So a hook keeps no state of a
// request or transaction in itself: what it needs for one transaction it
// stores in the TxContext (BeginTransaction).
#pragma once

#include <optional>
#include <string>

#include "core/autoredrive.h"
#include "core/job.h"
#include "core/outcome.h"
#include "core/queue.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/transition.h"
#include "core/workflow.h"
#include "store/store.h"

namespace redrive::engine {

struct TxContext;

// A job the current request just wrote: a change Apply() decided, or a job
// enqueue inserted (outcome kCreated).
struct JobWrite {
  Outcome outcome;
  const Job& job;      // as written
  const Event* event;  // what Apply() was given; null for an insert
  // The job's status before the change; unset for an insert.
  std::optional<JobStatus> before_status = std::nullopt;
};

// A queue the current request just paused or resumed.
struct QueueWrite {
  QueueOutcome outcome;
  const std::string& queue_name;
  const std::optional<std::string>& reason;  // why it was paused
};

// A worker the current request just registered or deregistered.
struct WorkerWrite {
  WorkerOutcome outcome;
  const WorkerInfo& worker;  // as written
};

// A run of a schedule that just enqueued a job (its job's own write came
// first, through OnJob).
struct ScheduleWrite {
  const Schedule& schedule;
  const ScheduleRun& run;
};

// A workflow whose derived status the current request just made completed
// or failed (its job's own write came first, through OnJob).
struct WorkflowWrite {
  WorkflowOutcome outcome;
  const WorkflowView& workflow;  // as the transaction now reads it
};

// An auto-redrive decision that changed its policy's phase
// (core/autoredrive.h): the policy, its state after the decision, and how
// many jobs the decision redrove.
struct AutoredriveWrite {
  const AutoredrivePolicy& policy;
  const AutoredriveState& state;
  const AutoredriveDecision& decision;
  int redriven = 0;
};

class WriteHook {
 public:
  virtual ~WriteHook() = default;

  // Once per transaction, before its first request runs, with the
  // transaction and its context (e.g. to store one snapshot of configuration
  // there for the whole batch, checked against the store in `tx`). Every
  // request of the transaction sees what it stored. An error fails the
  // transaction's requests.
  virtual Status BeginTransaction(store::WriteTx& tx, TxContext& ctx) {
    (void)tx;
    (void)ctx;
    return Status::Ok();
  }

  // Called as each write of a request is made, inside the request's
  // savepoint: rows written to `tx` commit or roll back with the request, and
  // so does what is recorded in ctx.effects. An error fails the request.
  // Called for every write, so the common case must stay one test.
  virtual Status OnJob(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) = 0;
  virtual Status OnQueue(store::WriteTx& tx, TxContext& ctx, const QueueWrite& write) = 0;
  // Only the hooks that care about the worker registry override this.
  virtual Status OnWorker(store::WriteTx& tx, TxContext& ctx, const WorkerWrite& write) {
    (void)tx;
    (void)ctx;
    (void)write;
    return Status::Ok();
  }
  virtual Status OnSchedule(store::WriteTx& tx, TxContext& ctx, const ScheduleWrite& write) {
    (void)tx;
    (void)ctx;
    (void)write;
    return Status::Ok();
  }
  virtual Status OnWorkflow(store::WriteTx& tx, TxContext& ctx, const WorkflowWrite& write) {
    (void)tx;
    (void)ctx;
    (void)write;
    return Status::Ok();
  }
  virtual Status OnAutoredrive(store::WriteTx& tx, TxContext& ctx, const AutoredriveWrite& write) {
    (void)tx;
    (void)ctx;
    (void)write;
    return Status::Ok();
  }
};

}  // namespace redrive::engine
