#include "core/metrics_registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace redrive {
namespace {

TEST(MetricsRegistryTest, RendersCountersAndGaugesExactly) {
  MetricsRegistry r;
  r.AddCounter("t_events_total", "Events seen.", {"queue", "kind"});
  r.AddGauge("t_depth", "Depth now.", {});
  r.Add("t_events_total", {"b", "x"});
  r.Add("t_events_total", {"a", "y"}, 2);
  r.Add("t_events_total", {"a", "y"});
  r.Set("t_depth", {}, 7.5);
  EXPECT_EQ(r.Render(),
            "# HELP t_events_total Events seen.\n"
            "# TYPE t_events_total counter\n"
            "t_events_total{queue=\"a\",kind=\"y\"} 3\n"
            "t_events_total{queue=\"b\",kind=\"x\"} 1\n"
            "# HELP t_depth Depth now.\n"
            "# TYPE t_depth gauge\n"
            "t_depth 7.5\n");
  EXPECT_EQ(r.Values("t_events_total"),
            (std::map<LabelValues, double>{{{"a", "y"}, 3}, {{"b", "x"}, 1}}));
  EXPECT_TRUE(r.Values("unknown_total").empty());
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry r;
  r.AddCounter("t_total", "Back\\slash\nnewline \"quotes\".", {"q"});
  r.Add("t_total", {"a\"b\\c\nd"});
  EXPECT_EQ(r.Render(),
            "# HELP t_total Back\\\\slash\\nnewline \"quotes\".\n"
            "# TYPE t_total counter\n"
            "t_total{q=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(MetricsRegistryTest, HistogramBucketsAreCumulativeWithSumAndCount) {
  MetricsRegistry r;
  r.AddHistogram("t_seconds", "Latency.", {"route"}, {0.0005, 0.01, 1});
  r.Observe("t_seconds", {"/x"}, 0.0001);
  r.Observe("t_seconds", {"/x"}, 0.005);
  r.Observe("t_seconds", {"/x"}, 0.01);  // on the bound: counts in le="0.01"
  r.Observe("t_seconds", {"/x"}, 3);     // above every bound: only +Inf
  EXPECT_EQ(r.Render(),
            "# HELP t_seconds Latency.\n"
            "# TYPE t_seconds histogram\n"
            "t_seconds_bucket{route=\"/x\",le=\"0.0005\"} 1\n"
            "t_seconds_bucket{route=\"/x\",le=\"0.01\"} 3\n"
            "t_seconds_bucket{route=\"/x\",le=\"1\"} 3\n"
            "t_seconds_bucket{route=\"/x\",le=\"+Inf\"} 4\n"
            "t_seconds_sum{route=\"/x\"} 3.0151\n"
            "t_seconds_count{route=\"/x\"} 4\n");
}

TEST(MetricsRegistryTest, HistogramWithoutLabels) {
  MetricsRegistry r;
  r.AddHistogram("t_size", "Sizes.", {}, {1, 2});
  r.Observe("t_size", {}, 2);
  EXPECT_EQ(r.Render(),
            "# HELP t_size Sizes.\n"
            "# TYPE t_size histogram\n"
            "t_size_bucket{le=\"1\"} 0\n"
            "t_size_bucket{le=\"2\"} 1\n"
            "t_size_bucket{le=\"+Inf\"} 1\n"
            "t_size_sum 2\n"
            "t_size_count 1\n");
}

TEST(MetricsRegistryTest, MisuseIsIgnored) {
  MetricsRegistry r;
  r.AddCounter("t_total", "T.", {"q"});
  r.Add("t_total", {"a", "extra"});  // wrong arity
  r.Add("unknown_total", {"a"});
  r.Set("t_total", {"a"}, 5);  // wrong type
  EXPECT_EQ(r.Render(), "# HELP t_total T.\n# TYPE t_total counter\n");
}

TEST(MetricsRegistryTest, FormatsValues) {
  EXPECT_EQ(FormatMetricValue(1024), "1024");
  EXPECT_EQ(FormatMetricValue(0.0025), "0.0025");
  EXPECT_EQ(FormatMetricValue(2.5), "2.5");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
}

}  // namespace
}  // namespace redrive
