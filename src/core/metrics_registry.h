// A small thread-safe registry of Prometheus metrics (counters, gauges and
// fixed-bucket histograms) rendered in the text exposition format 0.0.4.
// No external library: the server needs a dozen families, not a framework.
//
// Families are declared up front (Add*), then updated by name with label
// values given in the order of the family's label names. Updating an unknown
// family or passing the wrong number of label values is a programming error
// and is ignored (never throws: metrics must not take a request down).
//
// Thread-safety: all methods may be called from any thread (one mutex; the
// updates are a map lookup and an add, cheap next to a request).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace redrive {

using LabelValues = std::vector<std::string>;

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // `name` is the full metric name (counters end in _total by convention).
  // Families render in the order they were added.
  void AddCounter(std::string name, std::string help, std::vector<std::string> label_names);
  void AddGauge(std::string name, std::string help, std::vector<std::string> label_names);
  // `bounds`: the bucket upper bounds, ascending (+Inf is implicit).
  void AddHistogram(std::string name, std::string help, std::vector<std::string> label_names,
                    std::vector<double> bounds);

  void Add(std::string_view counter, const LabelValues& labels, double amount = 1);
  void Set(std::string_view gauge, const LabelValues& labels, double value);
  void Observe(std::string_view histogram, const LabelValues& labels, double value);

  // Every series of a counter or gauge family and its value, by label values
  // (empty for an unknown family).
  std::map<LabelValues, double> Values(std::string_view name) const;

  // Every family with # HELP and # TYPE lines; series sorted by label values.
  // A family with no series renders only its HELP and TYPE lines.
  std::string Render() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Series {
    double value = 0;                    // counter/gauge; histogram: sum
    long long count = 0;                 // histogram
    std::vector<long long> bucket_hits;  // histogram, per bound (not cumulative)
  };
  struct Family {
    std::string name;
    std::string help;
    Type type;
    std::vector<std::string> label_names;
    std::vector<double> bounds;
    std::map<LabelValues, Series> series;
  };

  void AddFamily(Family family);
  Family* Find(std::string_view name, Type type, const LabelValues& labels);

  mutable std::mutex mu_;
  std::vector<Family> families_;
};

// Helpers of the text format, exposed for tests.
std::string EscapeLabelValue(std::string_view value);  // \ " and newline
std::string FormatMetricValue(double value);           // shortest round-trip, +Inf/-Inf/NaN

}  // namespace redrive
