#include "cli/workflow_tree.h"

#include <algorithm>
#include <unordered_map>

namespace redrive::cli {
namespace {

// A job's place on the walk's stack: what to print before its branch.
struct Visit {
  size_t index;
  std::string prefix;  // the branches of the levels above
  bool last;           // the last child of its parent
  size_t depth;        // 0 for a root
};

std::string Label(const sdk::WorkflowJob& job, size_t outside) {
  std::string label = job.key;
  if (job.dependency_mode == DependencyMode::kAny && job.depends_on.size() > 1) label += " (any)";
  if (outside > 0) label += " (+" + std::to_string(outside) + " outside)";
  return label;
}

}  // namespace

std::vector<WorkflowTreeRow> WorkflowTree(std::span<const sdk::WorkflowJob> jobs) {
  std::unordered_map<std::string, size_t> index_of;
  for (size_t i = 0; i < jobs.size(); ++i) index_of.emplace(jobs[i].job.id, i);
  // children[i]: the jobs waiting for jobs[i], in definition order.
  std::vector<std::vector<size_t>> children(jobs.size());
  std::vector<size_t> outside(jobs.size(), 0);
  std::vector<bool> has_parent(jobs.size(), false);
  for (size_t i = 0; i < jobs.size(); ++i) {
    for (const std::string& dep : jobs[i].depends_on) {
      auto it = index_of.find(dep);
      if (it == index_of.end()) {
        ++outside[i];
        continue;
      }
      children[it->second].push_back(i);
      has_parent[i] = true;
    }
  }

  std::vector<WorkflowTreeRow> rows;
  std::vector<bool> shown(jobs.size(), false);
  auto walk = [&](size_t root) {
    std::vector<Visit> stack{{root, "", true, 0}};
    while (!stack.empty()) {
      Visit v = std::move(stack.back());
      stack.pop_back();
      const sdk::WorkflowJob& job = jobs[v.index];
      WorkflowTreeRow row{.status = JobStatusName(job.job.status), .job_id = job.job.id};
      std::string branch;
      if (v.depth > 0) branch = v.prefix + (v.last ? "└─ " : "├─ ");
      const bool deep = v.depth > kMaxTreeIndent;
      row.label = branch + (deep ? "[depth " + std::to_string(v.depth) + "] " : "") +
                  Label(job, outside[v.index]);
      row.repeated = shown[v.index];
      if (row.repeated) row.label += kRepeatMark;
      rows.push_back(std::move(row));
      if (shown[v.index]) continue;
      shown[v.index] = true;
      std::string below = v.prefix;
      if (v.depth > 0 && !deep) below += v.last ? "   " : "│  ";
      const std::vector<size_t>& kids = children[v.index];
      // Pushed in reverse so that they pop in definition order.
      for (size_t k = kids.size(); k-- > 0;) {
        stack.push_back({kids[k], below, k + 1 == kids.size(), v.depth + 1});
      }
    }
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!has_parent[i]) walk(i);
  }
  // Jobs on a cycle have no root above them (the server refuses cycles; a
  // tree must still show every job): each one not reached yet starts a walk.
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!shown[i]) walk(i);
  }
  return rows;
}

}  // namespace redrive::cli
