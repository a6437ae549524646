#include "core/workflow.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace redrive {

namespace {

bool ValidKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

std::string JobField(size_t i) { return "jobs[" + std::to_string(i) + "]"; }

Status CheckKey(const std::string& key, size_t i) {
  if (key.empty() || key.size() > kMaxWorkflowKeyLength) {
    return Status::Validation(
        JobField(i) + ".key",
        "key must be 1 to " + std::to_string(kMaxWorkflowKeyLength) + " characters");
  }
  if (!std::all_of(key.begin(), key.end(), ValidKeyChar)) {
    return Status::Validation(JobField(i) + ".key",
                              "key '" + key + "' may hold only letters, digits, '_' and '-'");
  }
  return Status::Ok();
}

// Kahn's algorithm over the validated graph; when some jobs are left, they
// lie on or behind a cycle: follow dependencies among them until one repeats
// and name that cycle.
Status CheckAcyclic(std::span<const WorkflowJobSpec> jobs,
                    const std::unordered_map<std::string_view, size_t>& index) {
  const size_t n = jobs.size();
  std::vector<size_t> waiting(n);
  std::vector<std::vector<size_t>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = jobs[i].depends_on.size();
    for (const std::string& d : jobs[i].depends_on) dependents[index.at(d)].push_back(i);
  }
  std::vector<size_t> ready;
  for (size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  size_t done = 0;
  while (!ready.empty()) {
    const size_t i = ready.back();
    ready.pop_back();
    ++done;
    for (size_t d : dependents[i]) {
      if (--waiting[d] == 0) ready.push_back(d);
    }
  }
  if (done == n) return Status::Ok();
  size_t at = 0;
  while (waiting[at] == 0) ++at;
  // Every job left waits for at least one job also left: walk until a repeat.
  std::vector<size_t> path;
  std::vector<int> seen_at(n, -1);
  while (seen_at[at] < 0) {
    seen_at[at] = static_cast<int>(path.size());
    path.push_back(at);
    for (const std::string& d : jobs[at].depends_on) {
      const size_t next = index.at(d);
      if (waiting[next] > 0) {
        at = next;
        break;
      }
    }
  }
  std::string cycle;
  for (size_t k = static_cast<size_t>(seen_at[at]); k < path.size(); ++k) {
    cycle += jobs[path[k]].key + " -> ";
  }
  cycle += jobs[at].key;
  return Status::Validation(JobField(at) + ".depends_on",
                            "dependency cycle at key '" + jobs[at].key + "': " + cycle);
}

}  // namespace

const char* DependencyModeName(DependencyMode m) {
  return m == DependencyMode::kAny ? "any" : "all";
}

std::optional<DependencyMode> ParseDependencyMode(std::string_view s) {
  if (s == "all") return DependencyMode::kAll;
  if (s == "any") return DependencyMode::kAny;
  return std::nullopt;
}

const char* ReadinessName(Readiness r) {
  switch (r) {
    case Readiness::kReady:
      return "ready";
    case Readiness::kWaiting:
      return "waiting";
    case Readiness::kBlockedForever:
      return "blocked_forever";
  }
  return "waiting";
}

Readiness DecideReadiness(DependencyMode mode, std::span<const JobStatus> dependencies) {
  size_t completed = 0, failed = 0;
  for (JobStatus s : dependencies) {
    if (s == JobStatus::kCompleted) {
      ++completed;
    } else if (s == JobStatus::kDeadletter || s == JobStatus::kCancelled ||
               s == JobStatus::kQuarantined) {
      ++failed;
    }
  }
  const size_t n = dependencies.size();
  if (mode == DependencyMode::kAll) {
    if (completed == n) return Readiness::kReady;
    return failed > 0 ? Readiness::kBlockedForever : Readiness::kWaiting;
  }
  if (n == 0 || completed > 0) return Readiness::kReady;
  return failed == n ? Readiness::kBlockedForever : Readiness::kWaiting;
}

bool ReadyOnceADependencyCompleted(DependencyMode mode, bool all_met) {
  return mode == DependencyMode::kAny || all_met;
}

const char* WorkflowStatusName(WorkflowStatus s) {
  switch (s) {
    case WorkflowStatus::kPending:
      return "pending";
    case WorkflowStatus::kRunning:
      return "running";
    case WorkflowStatus::kCompleted:
      return "completed";
    case WorkflowStatus::kFailed:
      return "failed";
    case WorkflowStatus::kCancelled:
      return "cancelled";
  }
  return "pending";
}

std::optional<WorkflowStatus> ParseWorkflowStatus(std::string_view s) {
  for (WorkflowStatus w : kAllWorkflowStatuses) {
    if (s == WorkflowStatusName(w)) return w;
  }
  return std::nullopt;
}

long long FailedJobs(const StatusCounts& counts) { return counts.deadletter + counts.quarantined; }

WorkflowStatus DeriveWorkflowStatus(const StatusCounts& counts) {
  if (counts.cancelled > 0) return WorkflowStatus::kCancelled;
  if (FailedJobs(counts) > 0) return WorkflowStatus::kFailed;
  if (counts.total() > 0 && counts.completed == counts.total()) return WorkflowStatus::kCompleted;
  if (counts.processing > 0 || counts.completed > 0) return WorkflowStatus::kRunning;
  return WorkflowStatus::kPending;
}

Status ValidateWorkflowGraph(std::span<const WorkflowJobSpec> jobs, size_t max_jobs,
                             size_t max_edges) {
  if (jobs.empty() || jobs.size() > max_jobs) {
    return Status::Validation("jobs", "a workflow has 1 to " + std::to_string(max_jobs) +
                                          " jobs, not " + std::to_string(jobs.size()));
  }
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < jobs.size(); ++i) {
    REDRIVE_RETURN_IF_ERROR(CheckKey(jobs[i].key, i));
    if (!index.emplace(jobs[i].key, i).second) {
      return Status::Validation(JobField(i) + ".key", "duplicate key '" + jobs[i].key + "'");
    }
  }
  size_t edges = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::unordered_set<std::string_view> seen;
    for (size_t k = 0; k < jobs[i].depends_on.size(); ++k) {
      const std::string& d = jobs[i].depends_on[k];
      const std::string field = JobField(i) + ".depends_on[" + std::to_string(k) + "]";
      if (d == jobs[i].key) {
        return Status::Validation(field, "job '" + d + "' depends on itself");
      }
      if (!index.contains(d)) {
        return Status::Validation(field,
                                  "job '" + jobs[i].key + "' depends on unknown key '" + d + "'");
      }
      if (!seen.insert(d).second) {
        return Status::Validation(field,
                                  "job '" + jobs[i].key + "' names dependency '" + d + "' twice");
      }
      if (++edges > max_edges) {
        return Status::Validation(field, "a workflow has at most " + std::to_string(max_edges) +
                                             " dependencies in all (at key '" + jobs[i].key + "')");
      }
    }
  }
  return CheckAcyclic(jobs, index);
}

}  // namespace redrive
