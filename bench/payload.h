// Job payloads of the bench, shaped like the peer harness's
// ({"w": workload, "i": index, "t": send stamp, "pad": "xxx…"}), so a server
// parses and stores the same bytes whichever tool drives it.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace redrive::bench {

// A payload of about `target_bytes` serialized bytes (never less than the
// fields need). `sent_ns` is a NowNs() stamp, or 0 when latency is not measured.
boost::json::object MakePayload(std::string_view workload, int64_t index, int64_t sent_ns,
                                size_t target_bytes);

// What the bench reads back from a claimed job's payload: a job from anywhere
// else (no numeric "i") has index -1; no numeric "t" reads as sent_ns 0.
struct BenchJob {
  int64_t index = -1;
  int64_t sent_ns = 0;
};
BenchJob ReadPayload(const boost::json::value& payload);

}  // namespace redrive::bench
