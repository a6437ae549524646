// `redrive serve --config FILE`: the serve flags from a file, an alternative
// to a long command line or environment. The file is a small subset of TOML:
//
//   # comments, blank lines
//   listen = "0.0.0.0:7070"
//   store = "sqlite:/var/lib/redrive/redrive.db"
//   api-key = ["admin:...", "worker:..."]     # repeatable flags: an array (or one string)
//   max-connections = 2048                     # integers
//   insecure-no-auth = false                   # on/off flags: true or false
//
// Keys are the flag names without the leading "--" ("_" may stand for
// "-"); values are "basic" strings (\" \\ \n \t escapes), 'literal'
// strings, integers, true/false, or one-line arrays of strings. Tables
// ([section]), unknown keys, repeated keys and anything else are errors
// naming the file and line: a typo must not be silently ignored.
//
// Precedence, per flag: the command line, then its environment twin, then
// the file, then the default. CLI11's own config support reads the file
// before the environment (the file would win), so the file is applied here:
// after a first parse, flags that are still unset get their file values as
// extra arguments, and the command line is parsed again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace CLI {
class App;
}

namespace redrive::app {

struct ConfigEntry {
  std::string key;                  // as written, "_" turned into "-"
  std::vector<std::string> values;  // one for a scalar, each item of an array
  enum class Kind { kString, kInteger, kBoolean, kArray } kind = Kind::kString;
  int line = 0;
};

// The largest configuration file read.
inline constexpr size_t kMaxConfigFileBytes = 1 << 20;

// Parses the file's text. VALIDATION error "LINE: why" on the first problem.
Result<std::vector<ConfigEntry>> ParseConfigText(std::string_view text);

struct ConfigFileArgs {
  std::vector<std::string> args;      // e.g. "--listen=0.0.0.0:7070"
  std::vector<std::string> warnings;  // one line each, for stderr
};

// Reads and parses `path`, then returns the arguments that give `serve`'s
// still-unset flags (count() == 0 after a parse) their values from the file.
// Errors name the file: "redrive.toml:3: unknown key 'lisen' ...". Warns
// when the file holds API keys and other users may read it.
Result<ConfigFileArgs> ConfigFileArguments(const CLI::App& serve, const std::string& path);

}  // namespace redrive::app
