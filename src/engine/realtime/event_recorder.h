// The write hook that turns what a request wrote into live events
// (core/realtime_event.h), inside the request's transaction, into
// ctx.effects.realtime_events; the engine publishes them to the EventHub
// only once the commit succeeded, so a subscriber never hears of a change
// that was rolled back. While nobody subscribes it records nothing: a write
// then costs one atomic load.
//
// Which events a job write makes: JobCreated for an insert; JobStatusChange
// for every change of status; then JobCompleted for a completion and
// JobFailed for every outcome core's outcome table counts as "failed".
//
// Thread-safety: thread-safe; it keeps no state.
#pragma once

#include "engine/realtime/event_hub.h"
#include "engine/tx_context.h"
#include "engine/write_hook.h"

namespace redrive::engine {

class RealtimeRecorder final : public WriteHook {
 public:
  // `hub` must outlive this.
  explicit RealtimeRecorder(const EventHub& hub) : hub_(hub) {}

  Status OnJob(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) override;
  Status OnQueue(store::WriteTx&, TxContext&, const QueueWrite&) override { return Status::Ok(); }
  Status OnWorker(store::WriteTx& tx, TxContext& ctx, const WorkerWrite& write) override;

 private:
  const EventHub& hub_;
};

// The events one job write makes (see above), at `now`.
std::vector<RealtimeEvent> EventsOfJobWrite(const JobWrite& write, Instant now);

}  // namespace redrive::engine
