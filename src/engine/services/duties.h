// Duties: the background work nodes sharing a database do once for all of
// them, and this node's view of which of them it leads. Each duty-bound
// service runs only while its node leads the duty (store.h's Leadership);
// per-node services (the throughput sampler, which samples this node's own
// counters) have no duty and run everywhere.
//
// Thread-safety: thread-safe (the background loop and the webhook dispatcher
// ask from their own threads).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "core/clock.h"
#include "store/store.h"

namespace redrive::engine {

namespace duty {
inline constexpr char kScheduler[] = "scheduler";
inline constexpr char kLeaseReaper[] = "lease-reaper";
inline constexpr char kDeadlineSweep[] = "deadline-sweep";
inline constexpr char kRetention[] = "retention";
inline constexpr char kWorkerPruning[] = "worker-pruning";
inline constexpr char kDeliveryRetention[] = "delivery-retention";
inline constexpr char kAuditRetention[] = "audit-retention";
inline constexpr char kWebhookDispatch[] = "webhook-dispatch";
inline constexpr char kSchedules[] = "schedules";
inline constexpr char kOperations[] = "operations";
inline constexpr char kFingerprintBackfill[] = "fingerprint-backfill";
inline constexpr char kAutoredrive[] = "autoredrive";
inline constexpr char kPlannerStatistics[] = "planner-statistics";
}  // namespace duty

// How often a node asks about a duty it does not lead (and at the latest
// renews one it does): the Leadership contract's "at least once a second".
inline constexpr std::chrono::seconds kLeadershipCheckInterval{1};

// "host-4242-1a2b": the host name, the process id and 16 random bits (so
// two engines of one process differ), readable in logs.
std::string DefaultNodeId();

class Duties {
 public:
  explicit Duties(std::string node_id) : node_id_(std::move(node_id)) {}

  // The store's leadership for this node; null (the default): this node
  // leads every duty. Set before the loop and the dispatcher start; must
  // outlive every later Leads call.
  void SetLeadership(store::Leadership* leadership);

  // Whether this node leads `duty` at `now` (asking the store's Leadership,
  // which acquires it when free). Logs each change; a store error is "no".
  bool Leads(const char* duty, Instant now);
  // Gives every duty up (clean shutdown), so other nodes take over at once.
  void ReleaseAll();
  // The nodes sharing the store, this one included (Leadership::LiveNodes);
  // 1 without a leadership.
  Result<int> LiveNodes(Instant now);

  const std::string& node_id() const { return node_id_; }
  // redrive_duty_leader{duty}: 1 for each duty this node leads, 0 for each
  // it asked about and does not (Prometheus text).
  std::string RenderGauge() const;

 private:
  const std::string node_id_;
  mutable std::mutex mu_;
  store::Leadership* leadership_ = nullptr;  // guarded by mu_ (the pointer; it is thread-safe)
  std::map<std::string, bool> leads_;        // guarded by mu_: last answers
};

}  // namespace redrive::engine
