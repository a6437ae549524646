// When a DLQ selection (queue, dead reason, error prefix) matches nothing,
// which failure classes did the operator most likely mean? A pure ranking of
// `dlq summary`'s groups by their likeness to what was asked, shared by the
// engine (the API's answers) and the CLI (`dlq list`).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"

namespace redrive {

// What a selection asked for; unset fields were not asked.
struct ClassQuery {
  std::optional<std::string> queue_name;
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> error_prefix;
};

// How alike `asked` and the start of `text` are, from 0 (nothing in common)
// to 1 (text starts with asked, letter case aside): one minus the edit
// distance of the two (compared over asked's length, case-folded) relative
// to asked's length. A trailing "…" or "..." on `asked` (pasted from a cut
// table cell) is ignored.
double PrefixLikeness(std::string_view asked, std::string_view text);

// The `n` groups most like `asked`, best first: each asked field the group
// has exactly counts 1, an asked queue or error prefix it lacks counts its
// PrefixLikeness; ties go to the larger group, then to the order given.
std::vector<DeadLetterGroup> ClosestClasses(std::vector<DeadLetterGroup> groups,
                                            const ClassQuery& asked, size_t n);

}  // namespace redrive
