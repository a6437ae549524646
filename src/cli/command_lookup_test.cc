#include "cli/command_lookup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace redrive::cli {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class CommandLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("redrive-lookup-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "bin");
    Write("bin/tool", 0755);
    Write("bin/plain", 0644);
    fs::create_directories(dir_ / "bin" / "adir");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, mode_t mode) {
    std::ofstream(dir_ / name) << "#!/bin/sh\n";
    chmod((dir_ / name).c_str(), mode);
  }
  std::string Bin() const { return (dir_ / "bin").string(); }

  fs::path dir_;
};

TEST_F(CommandLookupTest, FindsANameInPathLikeAShell) {
  auto found = FindExecutable("tool", "/nonexistent:" + Bin());
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, Bin() + "/tool");
  EXPECT_TRUE(FindExecutable("sh").ok());  // this process's PATH
}

TEST_F(CommandLookupTest, ATypoIsNotFound) {
  auto typo = FindExecutable("tol", Bin());
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message(), "`tol` not found in PATH");
}

TEST_F(CommandLookupTest, AMatchWeMayNotRunSaysWhy) {
  auto plain = FindExecutable("plain", Bin());
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(plain.status().message(), HasSubstr("is not executable"));
  EXPECT_THAT(FindExecutable("adir", Bin()).status().message(), HasSubstr("is a directory"));
}

TEST_F(CommandLookupTest, APathIsCheckedAsIs) {
  EXPECT_TRUE(FindExecutable(Bin() + "/tool", "").ok());
  EXPECT_THAT(FindExecutable(Bin() + "/plain", "").status().message(),
              HasSubstr("is not executable"));
  EXPECT_THAT(FindExecutable(Bin() + "/missing", Bin()).status().message(),
              HasSubstr("No such file"));
  // A name with a slash is never searched in PATH.
  EXPECT_FALSE(FindExecutable("bin/tool", Bin()).ok());
}

TEST_F(CommandLookupTest, AnEmptyPathEntryIsTheCurrentDirectory) {
  fs::path old = fs::current_path();
  fs::current_path(dir_ / "bin");
  auto found = FindExecutable("tool", "/nonexistent::");
  fs::current_path(old);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, "./tool");
}

}  // namespace
}  // namespace redrive::cli
