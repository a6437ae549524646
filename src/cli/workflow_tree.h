// A workflow's jobs as an indented tree for `redrive workflows show`: each
// job under the jobs it waits for, roots (jobs waiting for no job of the
// workflow) at the left, in definition order.
//
//   extract        completed  0193…
//   ├─ clean       pending    0193…
//   │  └─ load     blocked    0193…
//   └─ enrich      pending    0193…
//      └─ load *   blocked    0193…
//
// A job waiting for several jobs appears under each of them; after its first
// appearance it is marked (kRepeatMark) and its own dependents are not
// listed again, so a fan-in never repeats a subtree and nothing loops.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "redrive/types.h"

namespace redrive::cli {

// Appended to the label of a job already shown above.
inline constexpr const char* kRepeatMark = " *";
// Levels of branches drawn before rows stop moving right.
inline constexpr size_t kMaxTreeIndent = 24;

struct WorkflowTreeRow {
  std::string label;  // the tree's branches, the job's key and its marks
  std::string status;
  std::string job_id;
  bool repeated = false;  // shown above already: not expanded here
};

// One row per appearance of a job, depth first. A job whose dependencies
// all lie outside `jobs` is a root; its label says how many it waits for
// ("(+1 outside)"); a job of mode `any` waiting for several says "(any)".
// Branches stop growing past kMaxTreeIndent levels (deeper rows say their
// depth), so a long chain stays readable and its output linear.
std::vector<WorkflowTreeRow> WorkflowTree(std::span<const sdk::WorkflowJob> jobs);

}  // namespace redrive::cli
