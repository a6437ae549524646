#include "app/config_file.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>

namespace redrive::app {
namespace {

Status LineError(int line, const std::string& why) {
  return Status::Validation("config", std::to_string(line) + ": " + why);
}

bool IsBareKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

void SkipSpaces(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

// What may follow a value: spaces and an optional comment.
bool OnlyCommentLeft(std::string_view s) {
  SkipSpaces(s);
  return s.empty() || s.front() == '#';
}

// A string at the front of `s` ("basic" or 'literal'), consumed.
Result<std::string> TakeString(std::string_view& s, int line) {
  const char quote = s.front();
  s.remove_prefix(1);
  std::string out;
  while (!s.empty() && s.front() != quote) {
    char c = s.front();
    s.remove_prefix(1);
    if (c == '\\' && quote == '"') {
      if (s.empty()) break;
      const char e = s.front();
      s.remove_prefix(1);
      switch (e) {
        case '"':
        case '\\':
          out += e;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        default:
          return LineError(line, std::string("unsupported escape \\") + e + " in a string");
      }
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      return LineError(line, "control character in a string");
    }
    out += c;
  }
  if (s.empty()) return LineError(line, "unterminated string");
  s.remove_prefix(1);  // the closing quote
  return out;
}

Status ParseValue(std::string_view s, ConfigEntry& entry) {
  const int line = entry.line;
  if (s.empty()) return LineError(line, "missing value after '='");
  if (s.front() == '"' || s.front() == '\'') {
    REDRIVE_ASSIGN_OR_RETURN(std::string v, TakeString(s, line));
    entry.values = {std::move(v)};
    entry.kind = ConfigEntry::Kind::kString;
  } else if (s.front() == '[') {
    s.remove_prefix(1);
    entry.kind = ConfigEntry::Kind::kArray;
    for (;;) {
      SkipSpaces(s);
      if (!s.empty() && s.front() == ']') {
        s.remove_prefix(1);
        break;
      }
      if (s.empty() || (s.front() != '"' && s.front() != '\'')) {
        return LineError(line,
                         "expected a string or ']' in an array (arrays are of strings, "
                         "on one line)");
      }
      REDRIVE_ASSIGN_OR_RETURN(std::string v, TakeString(s, line));
      entry.values.push_back(std::move(v));
      SkipSpaces(s);
      if (!s.empty() && s.front() == ',') s.remove_prefix(1);
    }
  } else {
    size_t end = 0;
    while (end < s.size() && s[end] != ' ' && s[end] != '\t' && s[end] != '#') ++end;
    std::string word(s.substr(0, end));
    s.remove_prefix(end);
    if (word == "true" || word == "false") {
      entry.kind = ConfigEntry::Kind::kBoolean;
    } else {
      std::string digits = word;
      digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
      const size_t sign = !digits.empty() && (digits[0] == '-' || digits[0] == '+') ? 1 : 0;
      if (digits.size() == sign ||
          digits.find_first_not_of("0123456789", sign) != std::string::npos) {
        return LineError(line,
                         "expected a \"string\", an integer, true, false or [\"array\"], "
                         "got " +
                             word);
      }
      entry.kind = ConfigEntry::Kind::kInteger;
      word = digits;
    }
    entry.values = {std::move(word)};
  }
  if (!OnlyCommentLeft(s)) return LineError(line, "unexpected text after the value");
  return Status::Ok();
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

Result<std::vector<ConfigEntry>> ParseConfigText(std::string_view text) {
  std::vector<ConfigEntry> entries;
  std::set<std::string> seen;
  int line_number = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    SkipSpaces(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      return LineError(line_number,
                       "tables ([section]) are not supported: write the keys at the top level");
    }
    size_t key_end = 0;
    while (key_end < line.size() && IsBareKeyChar(line[key_end])) ++key_end;
    if (key_end == 0) return LineError(line_number, "expected KEY = VALUE");
    ConfigEntry entry;
    entry.line = line_number;
    entry.key = std::string(line.substr(0, key_end));
    std::replace(entry.key.begin(), entry.key.end(), '_', '-');
    line.remove_prefix(key_end);
    SkipSpaces(line);
    if (line.empty() || line.front() != '=') return LineError(line_number, "expected KEY = VALUE");
    line.remove_prefix(1);
    SkipSpaces(line);
    REDRIVE_RETURN_IF_ERROR(ParseValue(line, entry));
    if (!seen.insert(entry.key).second) {
      return LineError(line_number, "key " + Quoted(entry.key) + " given twice");
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<ConfigFileArgs> ConfigFileArguments(const CLI::App& serve, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Validation("config", "--config: cannot read " + path);
  std::string text;
  text.resize(kMaxConfigFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxConfigFileBytes) {
    return Status::Validation("config", "--config: " + path + " is larger than " +
                                            std::to_string(kMaxConfigFileBytes) + " bytes");
  }
  Result<std::vector<ConfigEntry>> entries = ParseConfigText(text);
  if (!entries.ok()) return Status::Validation("config", path + ":" + entries.status().message());

  ConfigFileArgs result;
  std::vector<std::string>& args = result.args;
  for (const ConfigEntry& e : *entries) {
    const std::string where = path + ":" + std::to_string(e.line) + ": ";
    const CLI::Option* option =
        e.key == "config" || e.key == "help" ? nullptr : serve.get_option_no_throw("--" + e.key);
    if (option == nullptr) {
      return Status::Validation(
          "config", where + "unknown key " + Quoted(e.key) +
                        " (keys are `redrive serve` flags without the leading --, e.g. listen, "
                        "store, api-key; see redrive serve --help)");
    }
    if (e.key == "api-key") {
      struct stat st {};
      if (stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0) {
        result.warnings.push_back("warning: " + path +
                                  " holds API keys and other users may read it (chmod 600 " + path +
                                  ", or pass the keys in REDRIVE_API_KEYS)");
      }
    }
    if (option->count() > 0) continue;  // the command line or the environment said it
    const std::string flag = "--" + e.key;
    if (option->get_expected_max() == 0) {  // an on/off flag
      if (e.kind != ConfigEntry::Kind::kBoolean) {
        return Status::Validation("config", where + e.key + " takes true or false");
      }
      if (e.values[0] == "true") args.push_back(flag);
      continue;
    }
    if (e.kind == ConfigEntry::Kind::kBoolean) {
      return Status::Validation("config", where + e.key + " takes a value, not true or false");
    }
    const bool repeatable = option->get_expected_max() > 1;
    if (e.kind == ConfigEntry::Kind::kArray && !repeatable) {
      return Status::Validation("config", where + e.key + " takes one value, not an array");
    }
    // --flag=VALUE: a value that starts with '-' stays a value.
    for (const std::string& v : e.values) args.push_back(flag + "=" + v);
  }
  return result;
}

}  // namespace redrive::app
