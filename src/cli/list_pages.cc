#include "cli/list_pages.h"

#include "cli/output.h"

namespace redrive::cli {

std::string MoreHint(size_t shown, std::optional<long long> total) {
  std::string text = "showing " + GroupedCount(static_cast<long long>(shown));
  text += total ? " of " + GroupedCount(*total) : "; more available";
  return text + " — use --all or --offset";
}

}  // namespace redrive::cli
