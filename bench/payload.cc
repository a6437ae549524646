#include "payload.h"

#include <boost/json/serialize.hpp>
#include <string>

namespace redrive::bench {

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

}  // namespace redrive::bench
