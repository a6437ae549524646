#include "engine/services/duties.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <random>

#include "core/metrics_registry.h"

namespace redrive::engine {

std::string DefaultNodeId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "node");
  }
  // Not the engine's injected Random: tests seed it alike for every engine.
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof(suffix), "%04x", static_cast<unsigned>(rd() & 0xffff));
  return std::string(host) + "-" + std::to_string(getpid()) + "-" + suffix;
}

void Duties::SetLeadership(store::Leadership* leadership) {
  std::lock_guard<std::mutex> lock(mu_);
  leadership_ = leadership;
  leads_.clear();
}

bool Duties::Leads(const char* duty, Instant now) {
  store::Leadership* leadership;
  {
    std::lock_guard<std::mutex> lock(mu_);
    leadership = leadership_;
  }
  bool leads = true;
  if (leadership != nullptr) {
    // Not under mu_: Hold may wait for the database's write lock, and a
    // scrape of the gauge must not wait with it. Each duty is asked by one
    // thread at a time (its service's), so its answers arrive in order.
    Result<bool> held = leadership->Hold(duty, now);
    if (!held.ok()) {
      spdlog::warn("duty {}: cannot ask who leads it: {}", duty, held.status().ToString());
    }
    leads = held.ok() && *held;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, first] = leads_.try_emplace(duty, leads);
  if (first ? leads : it->second != leads) {
    if (leads) {
      spdlog::info("node {} now leads {}", node_id_, duty);
    } else {
      spdlog::info("node {} no longer leads {}", node_id_, duty);
    }
  }
  it->second = leads;
  return leads;
}

void Duties::ReleaseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  if (leadership_ != nullptr) leadership_->ReleaseAll();
  for (auto& [duty, leads] : leads_) leads = false;
}

Result<int> Duties::LiveNodes(Instant now) {
  store::Leadership* leadership;
  {
    std::lock_guard<std::mutex> lock(mu_);
    leadership = leadership_;
  }
  if (leadership == nullptr) return 1;
  return leadership->LiveNodes(now);  // not under mu_, as Hold
}

std::string Duties::RenderGauge() const {
  MetricsRegistry gauges;
  gauges.AddGauge("redrive_duty_leader", "1 while this node leads the background duty, else 0.",
                  {"duty"});
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [duty, leads] : leads_) {
    gauges.Set("redrive_duty_leader", {duty}, leads ? 1.0 : 0.0);
  }
  return gauges.Render();
}

}  // namespace redrive::engine
