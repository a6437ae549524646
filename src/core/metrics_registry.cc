#include "core/metrics_registry.h"

#include <charconv>
#include <cmath>

namespace redrive {

namespace {

const char* TypeName(int type) {
  static constexpr const char* kNames[] = {"counter", "gauge", "histogram"};
  return kNames[type];
}

// HELP text escapes only backslash and newline (quotes are literal there).
std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// `{a="x",b="y"}` (empty when there are no labels); `extra` is a
// preformatted trailing pair such as le="0.5".
std::string LabelSet(const std::vector<std::string>& names, const LabelValues& values,
                     const std::string& extra = "") {
  if (names.empty() && extra.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"" + EscapeLabelValue(values[i]) + '"';
  }
  if (!extra.empty()) {
    if (!names.empty()) out += ',';
    out += extra;
  }
  out += '}';
  return out;
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // `general` keeps small bounds readable ("0.0005", not "5e-04") and
  // integers integral ("1024"), while still round-tripping exactly.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general);
  return std::string(buf, res.ptr);
}

void MetricsRegistry::AddFamily(Family family) {
  std::lock_guard<std::mutex> lock(mu_);
  families_.push_back(std::move(family));
}

void MetricsRegistry::AddCounter(std::string name, std::string help,
                                 std::vector<std::string> label_names) {
  AddFamily({std::move(name), std::move(help), Type::kCounter, std::move(label_names), {}, {}});
}

void MetricsRegistry::AddGauge(std::string name, std::string help,
                               std::vector<std::string> label_names) {
  AddFamily({std::move(name), std::move(help), Type::kGauge, std::move(label_names), {}, {}});
}

void MetricsRegistry::AddHistogram(std::string name, std::string help,
                                   std::vector<std::string> label_names,
                                   std::vector<double> bounds) {
  AddFamily({std::move(name),
             std::move(help),
             Type::kHistogram,
             std::move(label_names),
             std::move(bounds),
             {}});
}

MetricsRegistry::Family* MetricsRegistry::Find(std::string_view name, Type type,
                                               const LabelValues& labels) {
  for (Family& f : families_) {
    if (f.name == name) {
      return f.type == type && f.label_names.size() == labels.size() ? &f : nullptr;
    }
  }
  return nullptr;
}

void MetricsRegistry::Add(std::string_view counter, const LabelValues& labels, double amount) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Family* f = Find(counter, Type::kCounter, labels)) f->series[labels].value += amount;
}

void MetricsRegistry::Set(std::string_view gauge, const LabelValues& labels, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Family* f = Find(gauge, Type::kGauge, labels)) f->series[labels].value = value;
}

void MetricsRegistry::Observe(std::string_view histogram, const LabelValues& labels, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  Family* f = Find(histogram, Type::kHistogram, labels);
  if (!f) return;
  Series& s = f->series[labels];
  if (s.bucket_hits.empty()) s.bucket_hits.assign(f->bounds.size(), 0);
  for (size_t i = 0; i < f->bounds.size(); ++i) {
    if (value <= f->bounds[i]) {
      s.bucket_hits[i] += 1;
      break;
    }
  }
  s.value += value;
  s.count += 1;
}

std::map<LabelValues, double> MetricsRegistry::Values(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<LabelValues, double> out;
  for (const Family& f : families_) {
    if (f.name != name || f.type == Type::kHistogram) continue;
    for (const auto& [labels, s] : f.series) out.emplace(labels, s.value);
  }
  return out;
}

std::string MetricsRegistry::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const Family& f : families_) {
    out += "# HELP " + f.name + ' ' + EscapeHelp(f.help) + '\n';
    out += "# TYPE " + f.name + ' ' + TypeName(static_cast<int>(f.type)) + '\n';
    for (const auto& [labels, s] : f.series) {
      if (f.type != Type::kHistogram) {
        out += f.name + LabelSet(f.label_names, labels) + ' ' + FormatMetricValue(s.value) + '\n';
        continue;
      }
      // Prometheus buckets are cumulative: le="x" counts every value <= x.
      long long cumulative = 0;
      for (size_t i = 0; i < f.bounds.size(); ++i) {
        cumulative += s.bucket_hits[i];
        out += f.name + "_bucket" +
               LabelSet(f.label_names, labels, "le=\"" + FormatMetricValue(f.bounds[i]) + '"') +
               ' ' + std::to_string(cumulative) + '\n';
      }
      out += f.name + "_bucket" + LabelSet(f.label_names, labels, "le=\"+Inf\"") + ' ' +
             std::to_string(s.count) + '\n';
      out += f.name + "_sum" + LabelSet(f.label_names, labels) + ' ' + FormatMetricValue(s.value) +
             '\n';
      out += f.name + "_count" + LabelSet(f.label_names, labels) + ' ' + std::to_string(s.count) +
             '\n';
    }
  }
  return out;
}

}  // namespace redrive
