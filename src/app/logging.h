// `redrive serve`'s log: lines on stderr (stdout carries only the
// "listening on" line, which scripts and the e2e harness parse), UTC times,
// in one of two formats (--log-format):
//
//   text  2026-12-01T20:15:03.123Z info [node-a] [req 5f0c…] message
//   json  {"time":"2026-12-01T20:15:03.123Z","level":"info","node":"node-a",
//          "request_id":"5f0c…","message":"message"}   (one object per line)
//
// The node appears once SetLogNode named it (in JSON from the first line
// on; in text on PostgreSQL or with --node-id, from the engine's start), the request id on lines
// written while a request is screened or handed to the API on its I/O
// thread (server/request_id.h). JSON strings are valid UTF-8: bytes that are
// not are replaced by U+FFFD, control characters escaped.
//
// Thread-safety: call these before other threads log, or accept that a
// line being written meanwhile uses the previous format.
#pragma once

#include <string>
#include <string_view>

namespace redrive::app {

enum class LogFormat { kText, kJson };

// Installs the "redrive" logger on stderr as spdlog's default, at `level`
// (a spdlog level name) in `format`.
void ConfigureLogging(const std::string& level, LogFormat format);

// Names the node on every following line ("" for none).
void SetLogNode(const std::string& node_id);

// `text` as the body of a JSON string (without the quotes): ", \ and control
// characters escaped, invalid UTF-8 replaced by U+FFFD. Appended to `out`.
void AppendJsonStringBody(std::string_view text, std::string& out);

}  // namespace redrive::app
