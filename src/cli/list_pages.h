// Lists longer than one page of the API: `--limit N` above the server's page
// size and `--all` read page after page (limit/offset), and a listing that
// stops before the end says so ("showing 50 of 3,211 — use --all or
// --offset") instead of ending silently.
//
// Pages are read one after another, not as one snapshot: rows added or
// removed meanwhile can shift a row across a page boundary (shown twice or
// not at all), as with any offset paging.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace redrive::cli {

template <typename T>
struct Listing {
  std::vector<T> rows;
  bool more = false;  // rows past the last one shown exist
};

// One page: at most `limit` rows from `offset`.
template <typename T>
using PageReader = std::function<Result<std::vector<T>>(int offset, int limit)>;

// Reads `want` rows from `offset` (every row when nullopt) in pages of at
// most `page_size`, and one row more to learn whether the listing ends there.
template <typename T>
Result<Listing<T>> ReadPages(const PageReader<T>& read, int offset, std::optional<int> want,
                             int page_size) {
  Listing<T> out;
  const long long target = want ? static_cast<long long>(*want) + 1 : -1;  // -1: no end
  while (target < 0 || static_cast<long long>(out.rows.size()) < target) {
    long long left = target < 0 ? page_size : target - static_cast<long long>(out.rows.size());
    int limit = static_cast<int>(std::min<long long>(page_size, left));
    auto page = read(offset + static_cast<int>(out.rows.size()), limit);
    if (!page.ok()) return page.status();
    size_t got = page->size();
    for (T& row : *page) out.rows.push_back(std::move(row));
    if (got < static_cast<size_t>(limit)) break;  // a short page: the end
  }
  if (want && out.rows.size() > static_cast<size_t>(*want)) {
    out.rows.resize(static_cast<size_t>(*want));
    out.more = true;
  }
  return out;
}

// The line after a listing that stopped early: "showing 50 of 3,211 — use
// --all or --offset", or "showing 50; more available — ..." when the total
// is unknown.
std::string MoreHint(size_t shown, std::optional<long long> total);

}  // namespace redrive::cli
