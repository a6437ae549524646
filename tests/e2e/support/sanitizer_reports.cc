#include "e2e/support/sanitizer_reports.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "e2e/support/temp_dir.h"

namespace redrive::e2e {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Where the children write their reports; lives as long as the process.
const std::filesystem::path& ReportDir() {
  static const TempDir dir;
  return dir.path();
}

std::string ReadAndRemove(const std::filesystem::path& path) {
  std::stringstream text;
  {
    std::ifstream in(path);
    text << in.rdbuf();
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return text.str();
}

// Fails the run with the reports no one reaped (they all have been, normally).
class LeftoverReports : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(ReportDir(), ec)) {
      ADD_FAILURE() << "a child process wrote a sanitizer report (" << entry.path().filename()
                    << "):\n"
                    << ReadAndRemove(entry.path());
    }
  }
};

// Points the children's sanitizer output at ReportDir(); see the header.
bool RedirectChildReports() {
  if (!kSanitized) return false;
  const std::string log_path = "log_path=" + (ReportDir() / "report").string();
  for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"}) {
    const char* old = std::getenv(name);
    std::string value = old && *old ? std::string(old) + ":" + log_path : log_path;
    setenv(name, value.c_str(), 1);
  }
  ::testing::AddGlobalTestEnvironment(new LeftoverReports);
  return true;
}

// Before main(): before any test starts a child.
const bool redirected = RedirectChildReports();

}  // namespace

bool SanitizersEnabled() { return kSanitized; }

std::string TakeSanitizerReport(pid_t pid) {
  if (!redirected) return {};
  const auto path = ReportDir() / ("report." + std::to_string(pid));
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  return ReadAndRemove(path);
}

void ExpectNoSanitizerReport(pid_t pid, const std::string& what) {
  std::string report = TakeSanitizerReport(pid);
  if (!report.empty()) ADD_FAILURE() << what << " (pid " << pid << ") reported:\n" << report;
}

}  // namespace redrive::e2e
