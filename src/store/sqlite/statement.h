// Statement: one use of a prepared SQLite statement — bind, step, read
// columns. Statements are borrowed from a Connection's cache (see
// connection.h); destroying the Statement resets it and clears its bindings
// so the next borrower starts clean, without re-preparing.
//
// Thread-safety: none; a Statement is used by the thread that owns its
// Connection. Parameter indexes are 1-based, column indexes 0-based (as in
// the SQLite C API).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace redrive::store::sqlite {

class Statement {
 public:
  // `stmt` is borrowed from a cache when `in_use` is non-null (the flag is
  // cleared on destruction), else owned and finalized on destruction.
  Statement(sqlite3_stmt* stmt, bool* in_use) : stmt_(stmt), in_use_(in_use) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Text is bound without a copy (SQLITE_STATIC): it must stay alive and
  // unchanged until the Statement is destroyed. Temporaries are refused at
  // compile time for that reason.
  void Bind(int index, std::string_view text);
  void Bind(int index, const std::string& text) { Bind(index, std::string_view(text)); }
  void Bind(int index, std::string&&) = delete;
  void Bind(int index, const char* text) { Bind(index, std::string_view(text)); }
  void Bind(int index, int64_t value);
  void Bind(int index, int value) { Bind(index, static_cast<int64_t>(value)); }
  void Bind(int index, Instant t) { Bind(index, ToMicros(t)); }
  // Text SQLite copies: for values computed just to be bound (e.g. encoded).
  void BindCopy(int index, std::string_view text);
  void BindNull(int index);
  // Bytes SQLite copies, stored as a BLOB.
  void BindBlobCopy(int index, std::span<const uint8_t> bytes);
  template <typename T>
  void Bind(int index, const std::optional<T>& value) {
    if (value) {
      Bind(index, *value);
    } else {
      BindNull(index);
    }
  }

  // Advances: true when a row is available, false when done. A failed Bind
  // is reported here.
  Result<bool> Step();
  // Steps to completion, for statements that return no rows.
  Status Run();
  // Rows changed by the last completed INSERT/UPDATE/DELETE on this connection.
  long long Changes() const;

  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  bool IsBlob(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_BLOB; }
  int64_t Int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  int Int(int col) const { return sqlite3_column_int(stmt_, col); }
  // Valid until the next Step or destruction.
  std::string_view Text(int col) const;
  std::string String(int col) const { return std::string(Text(col)); }
  std::optional<std::string> OptString(int col) const;
  // A BLOB's bytes; valid until the next Step or destruction.
  std::span<const uint8_t> Blob(int col) const;
  Instant Time(int col) const { return InstantFromMicros(Int64(col)); }
  std::optional<Instant> OptTime(int col) const;

  sqlite3_stmt* raw() const { return stmt_; }

 private:
  void NoteBindError(int rc, int index);

  sqlite3_stmt* stmt_ = nullptr;
  bool* in_use_ = nullptr;
  int bind_error_ = SQLITE_OK;
  int bind_error_index_ = 0;
};

}  // namespace redrive::store::sqlite
