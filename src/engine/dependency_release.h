// What a job write means for the jobs that wait for it (core/workflow.h),
// inside the transaction that made it: no sweep ever polls for dependencies.
//  - A completion marks its edges met (store.h, MarkDependencyMet; no edge:
//    done), reads the blocked jobs waiting for the job (locked:
//    SelectBlockedDependents) with whether all they wait for is met, and
//    unblocks each whose condition now holds (ReadyOnceADependencyCompleted),
//    as one batch; they are claimable the moment the completion commits, and
//    not before.
//  - A dead-letter, quarantine or cancel unblocks nothing: the dependents
//    stay blocked (Readiness::kBlockedForever) until an operator redrives the
//    failed job and it completes.
//  - A write that makes a workflow's derived status completed or failed
//    tells the hooks (WorkflowWrite; the outbox sends workflow.completed or
//    workflow.failed). The status is read only while some webhook wants one
//    of those events: nothing else consumes it, and it costs a read of the
//    workflow's jobs.
#pragma once

#include "engine/tx_context.h"
#include "engine/write_hook.h"
#include "store/store.h"

namespace redrive::engine::ops {

// Called by TxContext::Wrote after the hooks saw `write`.
Status AfterJobWrite(store::WriteTx& tx, TxContext& ctx, const JobWrite& write);

// Whether `job_id`'s dependencies are met now (true when it has none).
Result<bool> DependenciesMet(store::ReadTx& tx, const std::string& job_id);

}  // namespace redrive::engine::ops
