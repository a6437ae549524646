#include "json_writer.h"

#include <boost/json/serialize.hpp>
#include <cmath>
#include <cstdio>

namespace redrive::bench {
namespace {

namespace json = boost::json;

void WriteDouble(double d, std::string& out) {
  if (!std::isfinite(d)) {
    out += "null";  // JSON has no NaN/inf
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", d);
  std::string s(buf);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  out += s == "-0" ? "0" : s;
}

void Write(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& kv : v.get_object()) {
        if (!first) out += ',';
        first = false;
        out += json::serialize(json::string_view(kv.key()));
        out += ':';
        Write(kv.value(), out);
      }
      out += '}';
      return;
    }
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const json::value& e : v.get_array()) {
        if (!first) out += ',';
        first = false;
        Write(e, out);
      }
      out += ']';
      return;
    }
    case json::kind::double_:
      WriteDouble(v.get_double(), out);
      return;
    default:
      out += json::serialize(v);
      return;
  }
}

}  // namespace

std::string WriteJson(const json::value& v) {
  std::string out;
  Write(v, out);
  return out;
}

}  // namespace redrive::bench
