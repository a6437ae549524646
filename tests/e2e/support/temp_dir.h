// A fresh directory under $TMPDIR (or /tmp), deleted with everything in it
// when the TempDir is destroyed — unless REDRIVE_KEEP_TEMP is set, for
// post-mortems of a failing test.
#pragma once

#include <filesystem>

namespace redrive::e2e {

class TempDir {
 public:
  TempDir();  // aborts the test binary if no directory can be created
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace redrive::e2e
