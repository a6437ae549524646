// A one-line progress bar on stderr, redrawn in place; silent when stderr is
// not a terminal (logs and pipes get only the final summary).
#pragma once

#include <cstddef>
#include <string>

namespace redrive::cli {

class ProgressBar {
 public:
  // `total`: bytes expected; 0 when unknown (stdin), which shows no bar.
  ProgressBar(bool enabled, size_t total) : enabled_(enabled), total_(total) {}
  void Update(size_t done, const std::string& note);
  void Finish();  // ends the line

 private:
  bool enabled_;
  size_t total_;
  bool drawn_ = false;
};

}  // namespace redrive::cli
