#include "api/router.h"

namespace redrive::api {
namespace {

bool IsParam(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

std::vector<std::string> SplitPattern(std::string_view pattern) {
  std::vector<std::string> out;
  if (pattern == "/") return out;  // the root has no segments, like its path
  size_t pos = 1;                  // patterns start with '/'
  while (pos <= pattern.size()) {
    size_t slash = pattern.find('/', pos);
    if (slash == std::string_view::npos) slash = pattern.size();
    out.emplace_back(pattern.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return out;
}

bool Matches(const std::vector<std::string>& pattern, const std::vector<std::string>& path) {
  if (pattern.size() != path.size()) return false;
  for (size_t i = 0; i < path.size(); ++i) {
    if (!IsParam(pattern[i]) && pattern[i] != path[i]) return false;
  }
  return true;
}

// Compares two matching patterns: the one with a literal at the first
// position where they differ in kind is more specific.
bool MoreSpecific(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    bool a_literal = !IsParam(a[i]), b_literal = !IsParam(b[i]);
    if (a_literal != b_literal) return a_literal;
  }
  return false;
}

}  // namespace

Router::Router(std::vector<Route> routes) {
  for (Route& r : routes) routes_.push_back({r, SplitPattern(r.pattern)});
}

RouteMatch Router::Match(std::string_view method, const std::vector<std::string>& segments) const {
  const std::vector<std::string>* best = nullptr;
  for (const Compiled& c : routes_) {
    if (Matches(c.segments, segments) && (best == nullptr || MoreSpecific(c.segments, *best))) {
      best = &c.segments;
    }
  }
  RouteMatch match;
  if (best == nullptr) return match;
  // HEAD is GET without the body (RFC 9110 9.3.2); the server drops the body.
  const std::string_view wanted = method == "HEAD" ? "GET" : method;
  for (const Compiled& c : routes_) {
    if (c.segments != *best) continue;
    if (c.route.method == wanted) {
      match.kind = RouteMatch::Kind::kFound;
      match.route = &c.route;
      for (size_t i = 0; i < segments.size(); ++i) {
        if (IsParam(c.segments[i])) {
          match.params[c.segments[i].substr(1, c.segments[i].size() - 2)] = segments[i];
        }
      }
      return match;
    }
    match.path_access |= c.route.access;
    if (!match.allow.empty()) match.allow += ", ";
    match.allow += c.route.method;
    if (c.route.method == "GET") match.allow += ", HEAD";
  }
  match.kind = RouteMatch::Kind::kMethodNotAllowed;
  return match;
}

}  // namespace redrive::api
