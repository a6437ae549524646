#include "cli/progress_bar.h"

#include <algorithm>
#include <iostream>

namespace redrive::cli {

void ProgressBar::Update(size_t done, const std::string& note) {
  if (!enabled_) return;
  constexpr size_t kWidth = 30;
  std::string line = "\r";
  if (total_ > 0) {
    size_t filled = std::min(kWidth, done * kWidth / total_);
    size_t percent = std::min<size_t>(100, done * 100 / total_);
    // Appends, not a chain of operator+ on temporaries: GCC 12 at -O3 reports
    // a false -Wrestrict overlap in that chain.
    line.append("[").append(filled, '#').append(kWidth - filled, '.').append("] ");
    line.append(std::to_string(percent)).append("%  ");
  }
  // Trailing spaces wipe what a longer previous line left behind.
  std::cerr << line << note << "    " << std::flush;
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (drawn_) std::cerr << "\n";
  drawn_ = false;
}

}  // namespace redrive::cli
