#include "core/closest_classes.h"

#include <algorithm>
#include <cctype>

#include "core/edit_distance.h"

namespace redrive {
namespace {

// Enough to tell classes apart; bounds the edit distance's cost.
constexpr size_t kMaxComparedBytes = 256;

std::string Folded(std::string_view text, size_t max) {
  std::string out(text.substr(0, std::min(max, text.size())));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view WithoutEllipsis(std::string_view text) {
  for (std::string_view tail : {std::string_view("\u2026"), std::string_view("...")}) {
    if (text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail) {
      text.remove_suffix(tail.size());
      break;
    }
  }
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

double Score(const DeadLetterGroup& g, const ClassQuery& asked) {
  double score = 0;
  if (asked.queue_name) score += PrefixLikeness(*asked.queue_name, g.queue_name);
  if (asked.dead_reason && *asked.dead_reason == g.dead_reason) score += 1;
  if (asked.error_prefix && g.error) score += PrefixLikeness(*asked.error_prefix, *g.error);
  return score;
}

}  // namespace

double PrefixLikeness(std::string_view asked, std::string_view text) {
  asked = WithoutEllipsis(asked);
  if (asked.empty()) return 1;
  std::string a = Folded(asked, kMaxComparedBytes);
  std::string b = Folded(text, a.size());
  return 1.0 - double(EditDistance(a, b)) / double(a.size());
}

std::vector<DeadLetterGroup> ClosestClasses(std::vector<DeadLetterGroup> groups,
                                            const ClassQuery& asked, size_t n) {
  std::vector<std::pair<double, size_t>> ranked;
  ranked.reserve(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) ranked.emplace_back(Score(groups[i], asked), i);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first > y.first;
    return groups[x.second].count > groups[y.second].count;
  });
  std::vector<DeadLetterGroup> out;
  for (size_t i = 0; i < ranked.size() && out.size() < n; ++i) {
    out.push_back(std::move(groups[ranked[i].second]));
  }
  return out;
}

}  // namespace redrive
