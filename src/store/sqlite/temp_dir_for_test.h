// A temporary directory removed on destruction, for the SQLite unit tests.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace redrive::store::sqlite {

class TempDirForTest {
 public:
  TempDirForTest() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "redrive-sqlite-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDirForTest() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDirForTest(const TempDirForTest&) = delete;
  TempDirForTest& operator=(const TempDirForTest&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace redrive::store::sqlite
