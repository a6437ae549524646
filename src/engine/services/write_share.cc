#include "engine/services/write_share.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/metrics_registry.h"

namespace redrive::engine {

size_t WriteShare(size_t pool, int nodes) {
  return std::max<size_t>(1, pool / static_cast<size_t>(std::max(nodes, 1)));
}

void WriteShareState::Set(size_t share, int nodes) {
  share_.store(static_cast<long long>(share));
  nodes_.store(nodes);
}

std::string WriteShareState::RenderGauge() const {
  const long long share = share_.load();
  if (share < 0) return "";
  MetricsRegistry gauges;
  gauges.AddGauge("redrive_db_write_share",
                  "Write transactions this node runs at once: its share of the pool among the "
                  "nodes sharing the database.",
                  {});
  gauges.AddGauge("redrive_db_nodes",
                  "Nodes sharing the database, this one included, as last counted.", {});
  gauges.Set("redrive_db_write_share", {}, static_cast<double>(share));
  gauges.Set("redrive_db_nodes", {}, nodes_.load());
  return gauges.Render();
}

ServiceRun WriteShareService::RunOnce(Instant now) {
  ServiceRun run;
  run.next_run = now + interval_;
  Result<int> nodes = live_nodes_(now);
  if (!nodes.ok()) {
    // Keep the share: the database is out of reach, and so are the others.
    spdlog::warn("write share: cannot count the nodes: {}", nodes.status().ToString());
    return run;
  }
  const size_t share = WriteShare(pool_, *nodes);
  state_.Set(share, *nodes);
  if (share == share_) return run;
  spdlog::info("write share: {} of {} write connections ({} nodes share the database)", share,
               pool_, *nodes);
  limit_(share);
  share_ = share;
  run.changed = 1;
  return run;
}

}  // namespace redrive::engine
