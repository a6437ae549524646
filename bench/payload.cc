#include "payload.h"

#include <boost/json/serialize.hpp>
#include <string>

namespace redrive::bench {
namespace {

// Numbers may come back as int64, uint64 or double depending on how the
// server stores and re-serializes payloads; the bench only needs integers.
int64_t ToInt64(const boost::json::value* v, int64_t fallback) {
  if (v == nullptr) return fallback;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return fallback;
}

}  // namespace

boost::json::object MakePayload(std::string_view workload, int64_t index, int64_t sent_ns,
                                size_t target_bytes) {
  boost::json::object p;
  p["w"] = workload;
  p["i"] = index;
  // Size the padding against a typical 13-digit stamp, so payloads keep one
  // size whether or not this one carries a real stamp.
  p["t"] = int64_t{1'000'000'000'000};
  p["pad"] = "";
  const size_t base = boost::json::serialize(p).size();
  p["t"] = sent_ns;
  if (target_bytes > base) p["pad"] = std::string(target_bytes - base, 'x');
  return p;
}

BenchJob ReadPayload(const boost::json::value& payload) {
  const boost::json::object* p = payload.if_object();
  if (p == nullptr) return {};
  return {ToInt64(p->if_contains("i"), -1), ToInt64(p->if_contains("t"), 0)};
}

}  // namespace redrive::bench
