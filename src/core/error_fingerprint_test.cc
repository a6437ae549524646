#include "core/error_fingerprint.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace redrive {
namespace {

struct Case {
  std::string error;
  std::string normalized;
};

// Real-world messages and what a human would call their class.
const std::vector<Case>& Cases() {
  static const auto* const cases = new std::vector<Case>{
      // Empty, blank, plain text.
      {"", ""},
      {"   \t\n ", ""},
      {"connection refused", "connection refused"},
      {"  many   spaces\tand\nnew lines  ", "many spaces and new lines"},
      // Numbers, decimals and units kept after the placeholder.
      {"upstream 504 after 20s", "upstream 504 after <n>s"},
      {"upstream 504 after 30s", "upstream 504 after <n>s"},
      {"timeout after 150ms", "timeout after <n>ms"},
      {"timed out after 2.5 seconds", "timed out after <n> seconds"},
      {"took 1h30m", "took <n>h<n>m"},
      {"retry 3 of 5", "retry <n> of <n>"},
      {"value -12 out of range", "value -<n> out of range"},
      {"score 1.5e-3 below threshold", "score <n> below threshold"},
      {"payload is 10MB, limit 8MB", "payload is <n>MB, limit <n>MB"},
      {"worker-7 lost", "worker-<n> lost"},
      {"job_12345 failed", "job_<n> failed"},
      {"libfoo 1.2.3 is too old", "libfoo <n> is too old"},
      // Digits inside a word are part of it.
      {"sha256 mismatch", "sha256 mismatch"},
      {"invalid utf8 in field v2", "invalid utf8 in field v2"},
      {"x86_64 only", "x86_<n> only"},
      // Codes stay as written: a 502 is not a 504.
      {"HTTP 503 Service Unavailable", "HTTP 503 Service Unavailable"},
      {"HTTP/1.1 429 Too Many Requests", "HTTP/<n> 429 Too Many Requests"},
      {"status=500 body=oops", "status=500 body=oops"},
      {"status code: 404", "status code: 404"},
      {"upstream returned 502", "upstream returned 502"},
      {"process exited: exit code 137", "process exited: exit code 137"},
      {"killed by signal 9", "killed by signal 9"},
      {"errno 111 (ECONNREFUSED)", "errno 111 (ECONNREFUSED)"},
      {"status 200 after 3.5s", "status 200 after <n>s"},
      // UUIDs, hex ids, 0x values, generated ids.
      {"job 0190a5b2-7c1e-7d4f-9a3b-1c2d3e4f5a6b not found", "job <uuid> not found"},
      {"order 550E8400-E29B-41D4-A716-446655440000 missing", "order <uuid> missing"},
      {"commit 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a unreachable", "commit <hex> unreachable"},
      {"segfault at 0x7ffd5e8c1a20", "segfault at <hex>"},
      {"bad pointer 0XDEADBEEF", "bad pointer <hex>"},
      {"pod api-7b9f8c6d5-x2k4q crashed", "pod api-<hex>-x2k4q crashed"},
      {"customer cus_Nffr2FeUfNV2Hib9 has no card", "customer <id> has no card"},
      {"request 01HZX3K5M8Q2W7E4R9T6Y1U0IP dropped", "request <id> dropped"},
      {"ConnectionRefusedError2 raised", "ConnectionRefusedError2 raised"},
      {"deadbeef is not hex enough", "deadbeef is not hex enough"},
      // Quoted values; apostrophes inside words are not quotes.
      {"user 'alice' not found", "user <str> not found"},
      {"key \"order:42\" expired", "key <str> expired"},
      {"can't open `/tmp/x.lock`", "can't open <str>"},
      {"don't retry: 'bad input'", "don't retry: <str>"},
      {"unterminated 'quote", "unterminated 'quote"},
      {"escaped \"a \\\" b\" end", "escaped <str> end"},
      // Timestamps.
      {"lease expired at 2024-05-01T10:00:00Z", "lease expired at <time>"},
      {"at 2024-05-01T10:00:00.123456+02:00 token expired", "at <time> token expired"},
      {"at 2024-05-01 10:00:00 retry", "at <time> retry"},
      {"on 2024-05-01 nothing ran", "on <time> nothing ran"},
      {"[12:30:45.120] worker stalled", "[<time>] worker stalled"},
      // IP addresses, with ports.
      {"connect to 10.0.0.12:5432 failed", "connect to <ip> failed"},
      {"dial tcp 192.168.1.1: i/o timeout", "dial tcp <ip>: i/o timeout"},
      {"blocked 10.1.0.0/16", "blocked <ip>"},
      {"connect to [2001:db8::1]:443 refused", "connect to <ip> refused"},
      {"host ::1 unreachable", "host <ip> unreachable"},
      {"from fe80::1ff:fe23:4567:890a%eth0", "from <ip>"},
      {"mapped ::ffff:10.0.0.1 ok", "mapped <ip> ok"},
      {"peer 2001:0db8:85a3:0000:0000:8a2e:0370:7334 reset", "peer <ip> reset"},
      {"std::runtime_error thrown", "std::runtime_error thrown"},
      // PostgreSQL errors.
      {"ERROR: duplicate key value violates unique constraint \"users_email_key\" (SQLSTATE "
       "23505)",
       "ERROR: duplicate key value violates unique constraint <str> (SQLSTATE 23505)"},
      {"pq: relation \"orders_2024\" does not exist", "pq: relation <str> does not exist"},
      {"ERROR:  canceling statement due to statement timeout\nCONTEXT:  SQL statement \"SELECT "
       "1\"",
       "ERROR: canceling statement due to statement timeout CONTEXT: SQL statement <str>"},
      {"could not serialize access due to concurrent update (SQLSTATE 40001)",
       "could not serialize access due to concurrent update (SQLSTATE 40001)"},
      // Stack-trace-ish lines.
      {"TypeError: Cannot read properties of undefined (reading 'id')\n    at handler "
       "(/app/src/worker.js:42:17)",
       "TypeError: Cannot read properties of undefined (reading <str>) at handler "
       "(/app/src/worker.js:<n>:<n>)"},
      {"Traceback (most recent call last):\n  File \"/app/jobs.py\", line 88, in run",
       "Traceback (most recent call last): File <str>, line <n>, in run"},
      {"panic: runtime error: index out of range [5] with length 3",
       "panic: runtime error: index out of range [<n>] with length <n>"},
      // Other languages and UTF-8.
      {"Zeitüberschreitung nach 30 Sekunden", "Zeitüberschreitung nach <n> Sekunden"},
      {"接続がタイムアウトしました (20秒)", "接続がタイムアウトしました (<n>秒)"},
      {"délai dépassé: « 12 » essais", "délai dépassé: « <n> » essais"},
      {"ошибка 'тест' на 5 попытке", "ошибка <str> на <n> попытке"},
      {"🔥 job 42 exploded", "🔥 job <n> exploded"},
  };
  return *cases;
}

TEST(NormalizeErrorTest, ReplacesVariablePartsWithStablePlaceholders) {
  for (const Case& c : Cases()) {
    EXPECT_EQ(NormalizeError(c.error), c.normalized) << "error: " << c.error;
  }
}

TEST(NormalizeErrorTest, IsIdempotent) {
  for (const Case& c : Cases()) {
    EXPECT_EQ(NormalizeError(c.normalized), c.normalized) << "normalized: " << c.normalized;
  }
}

TEST(ErrorFingerprintTest, GroupsMessagesThatDifferOnlyInVariableParts) {
  EXPECT_EQ(ErrorFingerprint("upstream 504 after 20s"), ErrorFingerprint("upstream 504 after 30s"));
  EXPECT_EQ(ErrorFingerprint("user 'alice' at 10.0.0.1:80"),
            ErrorFingerprint("user  'bob' at 192.168.0.7:8080 "));
  EXPECT_EQ(ErrorFingerprint("job 0190a5b2-7c1e-7d4f-9a3b-1c2d3e4f5a6b at 2024-05-01T10:00:00Z"),
            ErrorFingerprint("job 0190a5b2-0000-7d4f-9a3b-ffffffffffff at 2025-12-31T23:59:59Z"));
}

TEST(ErrorFingerprintTest, SeparatesDifferentProblems) {
  EXPECT_NE(ErrorFingerprint("upstream 504 after 20s"), ErrorFingerprint("upstream 502 after 20s"));
  EXPECT_NE(ErrorFingerprint("exit code 1"), ErrorFingerprint("exit code 137"));
  EXPECT_NE(ErrorFingerprint("timeout after 20s"), ErrorFingerprint("timeout after 20ms"));
  EXPECT_NE(ErrorFingerprint("connection refused"), ErrorFingerprint("connection reset"));
}

TEST(ErrorFingerprintTest, IsSixteenLowercaseHexOfFnv1a64) {
  // FNV-1a 64 reference values.
  EXPECT_EQ(Fnv1a64Hex(""), "cbf29ce484222325");
  EXPECT_EQ(Fnv1a64Hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(Fnv1a64Hex("foobar"), "85944171f73967e8");
  EXPECT_EQ(ErrorFingerprint("upstream 504 after 20s"), Fnv1a64Hex("upstream 504 after <n>s"));
  for (const Case& c : Cases()) EXPECT_TRUE(IsErrorFingerprint(ErrorFingerprint(c.error)));
}

TEST(ErrorFingerprintTest, ReadsOnlyTheFirstKibibytesOfHugeErrors) {
  const std::string head = "stack overflow in frame 1 ";
  std::string a = head + std::string(kFingerprintInputBytes, 'x') + " tail A";
  std::string b = head + std::string(kFingerprintInputBytes * 100, 'x') + " tail B 99";
  EXPECT_EQ(ErrorFingerprint(a), ErrorFingerprint(b));
  EXPECT_LE(NormalizeError(b).size(), kNormalizedErrorMaxBytes);
  // Placeholders longer than what they replace are still bounded.
  std::string digits;
  for (int i = 0; i < 2000; ++i) digits += "1 ";
  EXPECT_EQ(NormalizeError(digits).size(), kNormalizedErrorMaxBytes);
}

TEST(ErrorFingerprintTest, CutsOnCharacterBoundaries) {
  // A 2-byte character straddling the input bound is dropped whole.
  std::string error = std::string(kFingerprintInputBytes - 1, 'a') + "\xc3\xa9";
  const std::string n = NormalizeError(error);
  EXPECT_EQ(n, std::string(kFingerprintInputBytes - 1, 'a').substr(0, kNormalizedErrorMaxBytes));
  std::string wide;
  for (size_t i = 0; i < kNormalizedErrorMaxBytes; ++i) wide += "\xe2\x82\xac";  // €
  EXPECT_EQ(NormalizeError(wide).size() % 3, 0u);
}

TEST(IsErrorFingerprintTest, AcceptsOnlySixteenLowercaseHexDigits) {
  EXPECT_TRUE(IsErrorFingerprint("0123456789abcdef"));
  EXPECT_FALSE(IsErrorFingerprint(""));
  EXPECT_FALSE(IsErrorFingerprint("0123456789abcde"));
  EXPECT_FALSE(IsErrorFingerprint("0123456789abcdef0"));
  EXPECT_FALSE(IsErrorFingerprint("0123456789ABCDEF"));
  EXPECT_FALSE(IsErrorFingerprint("0123456789abcdeg"));
}

}  // namespace
}  // namespace redrive
