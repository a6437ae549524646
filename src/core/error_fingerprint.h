// Error classes that group like a human would: `upstream 504 after 20s` and
// `upstream 504 after 30s` are one failure, so the DLQ's "why are they dead?"
// groups dead jobs by a fingerprint of their error with its variable parts
// (numbers, ids, quoted values, times, addresses) replaced by placeholders.
// Pure functions, no I/O: the engine fingerprints a job's last_error when it
// dead-letters or is quarantined (core's Apply) and stores only pass it on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace redrive {

// Only the first kFingerprintInputBytes bytes of an error are read: a 1 MB
// stack trace costs what a 4 KiB one does, and two errors that differ only
// past that point are one class.
inline constexpr size_t kFingerprintInputBytes = 4096;
// The normalized message is cut to this many bytes (on a UTF-8 boundary)
// before it is hashed and shown.
inline constexpr size_t kNormalizedErrorMaxBytes = 1024;
// A fingerprint is this many lowercase hex characters (FNV-1a, 64 bits).
inline constexpr size_t kFingerprintChars = 16;

// `error` with its variable parts replaced by stable placeholders, in this
// order of precedence at each position:
//   <uuid>  8-4-4-4-12 hex digits
//   <time>  RFC 3339 / ISO 8601 dates and times (2024-05-01, 2024-05-01T10:00:00.123Z,
//           2024-05-01 10:00:00+02:00) and bare clock times (10:00:00, 10:00:00.5)
//   <ip>    IPv4 (10.0.0.1, with :port) and IPv6 (2001:db8::1, [::1]:5432, fe80::1%eth0)
//   <hex>   0x-prefixed hex, and words of 8+ hex digits holding a digit (SHAs, ids)
//   <id>    other words of 20+ letters/digits/underscores mixing both (ULIDs, tokens)
//   <str>   a quoted value: '…', "…" or `…` (an apostrophe inside a word is not a quote)
//   <n>     a number (integer or decimal, 1.5e3, version-like 1.2.3) that does not
//           continue a word: `after 20s` → `after <n>s` (a unit stays after the
//           placeholder), `worker-7` → `worker-<n>`, but `sha256`, `utf8`, `v2` stay
// Except: an integer that follows a word naming a code (http, HTTP/1.1, status,
// code, sqlstate, errno, exit, signal, error, upstream, returned, …) stays as
// written, so a 502 and a 504, or exit code 1 and 137, stay different classes.
// Whitespace runs collapse to one space; leading and trailing space is dropped.
// Bytes that are not ASCII (other languages, emoji) are kept as they are.
// Never longer than kNormalizedErrorMaxBytes; valid UTF-8 in, valid UTF-8 out.
std::string NormalizeError(std::string_view error);

// The class of `error`: kFingerprintChars lowercase hex characters of the
// FNV-1a 64 hash of NormalizeError(error). Stable across versions only as
// long as NormalizeError is: a change to the rules is a new fingerprint.
std::string ErrorFingerprint(std::string_view error);

// FNV-1a 64 of `bytes` as kFingerprintChars lowercase hex characters.
std::string Fnv1a64Hex(std::string_view bytes);

// True when `text` has the shape of a fingerprint (kFingerprintChars
// characters 0-9 a-f); the API refuses any other.
bool IsErrorFingerprint(std::string_view text);

}  // namespace redrive
