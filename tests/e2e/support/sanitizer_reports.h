// Sanitizer reports of the processes a test starts (the `redrive` server and
// client commands, the examples), in a sanitizer build (`make test-sanitize`,
// `make test-tsan`): a report in a child must fail the test, even when the
// test never looks at the child's exit code or stderr (a leak found as a
// server exits, a race on a thread the test does not watch).
//
// At start-up this adds log_path=<a temp dir>/report to the ASAN_, UBSAN_,
// LSAN_ and TSAN_OPTIONS of the test process's environment, which every
// child inherits (the test process itself has read its options already and
// keeps reporting on stderr): each child writes its reports to
// report.<its pid>. ServerProcess and RunRedrive fail the test with the
// report of a child when they reap it; a global test environment fails the
// run with any report left at the end (children reaped elsewhere). In a build
// without sanitizers all of this is off.
#pragma once

#include <sys/types.h>

#include <string>

namespace redrive::e2e {

// True in a build with ASan or TSan (UBSan runs with ASan).
bool SanitizersEnabled();

// Removes and returns the sanitizer report of process `pid`; empty if it wrote
// none (always, without sanitizers).
std::string TakeSanitizerReport(pid_t pid);

// ADD_FAILURE()s with the report of `pid`, if any; `what` names the process.
void ExpectNoSanitizerReport(pid_t pid, const std::string& what);

}  // namespace redrive::e2e
