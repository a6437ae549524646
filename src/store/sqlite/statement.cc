#include "store/sqlite/statement.h"

#include <utility>

#include "store/sqlite/sqlite_error.h"

namespace redrive::store::sqlite {

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  if (in_use_ != nullptr) {
    // Reset releases the statement's read lock on the database and lets a
    // later borrower bind afresh; stale bindings would leak pointers to
    // strings that no longer exist.
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *in_use_ = false;
  } else {
    sqlite3_finalize(stmt_);
  }
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      bind_error_(other.bind_error_),
      bind_error_index_(other.bind_error_index_) {}

void Statement::NoteBindError(int rc, int index) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) {
    bind_error_ = rc;
    bind_error_index_ = index;
  }
}

void Statement::Bind(int index, std::string_view text) {
  // SQLITE_STATIC: no copy; the caller keeps `text` alive (see header).
  NoteBindError(
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8),
      index);
}

void Statement::BindCopy(int index, std::string_view text) {
  NoteBindError(
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      index);
}

void Statement::Bind(int index, int64_t value) {
  NoteBindError(sqlite3_bind_int64(stmt_, index, value), index);
}

void Statement::BindNull(int index) { NoteBindError(sqlite3_bind_null(stmt_, index), index); }

Result<bool> Statement::Step() {
  sqlite3* db = sqlite3_db_handle(stmt_);
  if (bind_error_ != SQLITE_OK) {
    return SqliteError(
        db, bind_error_,
        "binding parameter " + std::to_string(bind_error_index_) + " of " + sqlite3_sql(stmt_));
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db, rc, sqlite3_sql(stmt_));
}

Status Statement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

long long Statement::Changes() const { return sqlite3_changes64(sqlite3_db_handle(stmt_)); }

void Statement::BindBlobCopy(int index, std::span<const uint8_t> bytes) {
  NoteBindError(sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT),
                index);
}

std::span<const uint8_t> Statement::Blob(int col) const {
  // The pointer before the length, as for Text.
  const void* p = sqlite3_column_blob(stmt_, col);
  if (p == nullptr) return {};
  return {static_cast<const uint8_t*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

std::string_view Statement::Text(int col) const {
  // Ask for the text before its length: sqlite3_column_bytes after
  // sqlite3_column_text measures the converted UTF-8 value.
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

std::optional<std::string> Statement::OptString(int col) const {
  if (IsNull(col)) return std::nullopt;
  return String(col);
}

std::optional<Instant> Statement::OptTime(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Time(col);
}

}  // namespace redrive::store::sqlite
