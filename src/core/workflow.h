// Workflows and job dependencies, with no I/O: a workflow is a set of jobs
// created together, each naming by key the jobs it waits for. This file holds
// the plain data the store keeps (Workflow, WorkflowMember, JobDependency),
// the validation of a workflow's graph, the one rule of when a job whose
// dependencies changed becomes ready (DecideReadiness), and the one rule of
// what a workflow's status is (DeriveWorkflowStatus). A workflow's status and
// counts are never stored: they are read from its jobs' statuses.
//
// A job waiting for its dependencies has status `blocked` (core/job.h); it
// leaves it through the Unblock event (core/transition.h), in the same
// transaction as the completion that satisfied it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/job.h"
#include "core/queue.h"
#include "core/status.h"

namespace redrive {

// How a job's dependencies combine.
enum class DependencyMode {
  kAll,  // ready when every dependency completed
  kAny,  // ready when one dependency completed
};
const char* DependencyModeName(DependencyMode m);  // "all", "any"
std::optional<DependencyMode> ParseDependencyMode(std::string_view s);

// Where a job stands given its dependencies' statuses.
enum class Readiness {
  kReady,          // its condition holds: it may run
  kWaiting,        // not yet; a dependency still pending, running or retrying can satisfy it
  kBlockedForever  // no dependency left can satisfy it without an operator (a dependency
                   // dead-lettered, was cancelled or quarantined): it does not run
};
const char* ReadinessName(Readiness r);  // "ready", "waiting", "blocked_forever"

// The readiness of a job in `mode` whose dependencies have `dependencies`
// statuses (one per dependency). A completed dependency satisfies; a
// dead-lettered, cancelled or quarantined one has failed (until an operator
// redrives it); any other is still in progress. No dependency: ready.
Readiness DecideReadiness(DependencyMode mode, std::span<const JobStatus> dependencies);

// DecideReadiness for a blocked job one of whose dependencies has just
// completed, given whether every one of its dependencies is now met
// (completed): in mode `any` the one that completed is enough; in mode `all`
// each must be. Asking "is any dependency unmet?" instead of reading every
// dependency's status keeps a completion O(1) in the size of its
// dependents' dependency lists (a fan-in of 10,000 jobs).
bool ReadyOnceADependencyCompleted(DependencyMode mode, bool all_met);

// A workflow's status, derived from its jobs' statuses:
//   cancelled — a job was cancelled (cancel cancels every unfinished job);
//   failed    — otherwise, a job dead-lettered or was quarantined;
//   completed — every job completed;
//   running   — a job is processing or completed;
//   pending   — nothing has started yet.
enum class WorkflowStatus { kPending, kRunning, kCompleted, kFailed, kCancelled };
inline constexpr WorkflowStatus kAllWorkflowStatuses[] = {
    WorkflowStatus::kPending, WorkflowStatus::kRunning, WorkflowStatus::kCompleted,
    WorkflowStatus::kFailed, WorkflowStatus::kCancelled};
const char* WorkflowStatusName(WorkflowStatus s);  // "pending", ...
std::optional<WorkflowStatus> ParseWorkflowStatus(std::string_view s);
// REQUIRES: counts are of the workflow's jobs (total() > 0 for a real workflow).
WorkflowStatus DeriveWorkflowStatus(const StatusCounts& counts);
// Jobs failed for the workflow's progress: dead-lettered and quarantined.
long long FailedJobs(const StatusCounts& counts);

// A workflow as stored: what was given at creation. Its jobs are rows of
// their own (WorkflowMember); its status and counts are derived (WorkflowView).
struct Workflow {
  std::string id;  // UUIDv7
  std::string name;
  std::optional<std::string> description;
  std::string metadata_json = "{}";  // a serialized JSON object
  Instant created_at{};
  friend bool operator==(const Workflow&, const Workflow&) = default;
};

// One job of a workflow: its key in the definition and its place in it.
struct WorkflowMember {
  std::string workflow_id;
  std::string job_id;
  std::string key;
  int position = 0;  // index in the definition's jobs
  friend bool operator==(const WorkflowMember&, const WorkflowMember&) = default;
};

// An edge: job_id waits for depends_on_job_id. Every edge of one job has the
// job's mode.
struct JobDependency {
  std::string job_id;
  std::string depends_on_job_id;
  DependencyMode mode = DependencyMode::kAll;
  friend bool operator==(const JobDependency&, const JobDependency&) = default;
};

// A workflow with what its jobs say about it.
struct WorkflowView {
  Workflow workflow;
  StatusCounts counts;                 // its jobs by status
  std::optional<Instant> started_at;   // the earliest start of one of its jobs
  std::optional<Instant> finished_at;  // the latest completed_at, once its status is final
  WorkflowStatus status() const { return DeriveWorkflowStatus(counts); }
};

// One job of a workflow as listed: its key, the job (with payload and
// result), its mode and the ids of the jobs it waits for.
struct WorkflowJobRow {
  WorkflowMember member;
  Job job;
  DependencyMode mode = DependencyMode::kAll;
  std::vector<std::string> depends_on;
};

// The other end of a dependency, as a job's dependencies are listed.
struct DependencyLink {
  std::string job_id;
  std::string queue_name;
  JobStatus status = JobStatus::kPending;
  friend bool operator==(const DependencyLink&, const DependencyLink&) = default;
};

// A job's dependencies and dependents, each ordered by job id.
struct JobDependencies {
  DependencyMode mode = DependencyMode::kAll;  // kAll when it has no dependency
  std::vector<DependencyLink> dependencies;
  std::vector<DependencyLink> dependents;
};

// The definition of one job of a workflow, as far as its graph goes.
struct WorkflowJobSpec {
  std::string key;
  std::vector<std::string> depends_on;  // keys
  DependencyMode mode = DependencyMode::kAll;
};

inline constexpr size_t kMaxWorkflowJobs = 10000;
inline constexpr size_t kMaxWorkflowEdges = 50000;
inline constexpr size_t kMaxWorkflowKeyLength = 100;

// Checks a workflow's graph: 1..max_jobs jobs, keys of 1..100 characters
// from [A-Za-z0-9_-], unique; every depends_on names another job of the
// workflow, at most once; at most max_edges edges in all; no cycle. A
// refusal is VALIDATION naming the field ("jobs[3].depends_on[1]") and,
// in its message, the offending key.
Status ValidateWorkflowGraph(std::span<const WorkflowJobSpec> jobs,
                             size_t max_jobs = kMaxWorkflowJobs,
                             size_t max_edges = kMaxWorkflowEdges);

}  // namespace redrive
