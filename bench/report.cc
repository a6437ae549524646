#include "report.h"

#include <boost/json/object.hpp>
#include <cmath>
#include <cstdio>

#include "json_writer.h"

namespace redrive::bench {
namespace {

namespace json = boost::json;

// Fixed decimals for reports: rates as integers, milliseconds to 0.01.
double Round(double v, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Verdict(bool ok, const std::string& error) {
  if (ok) return "ok";
  return "FAILED" + (error.empty() ? std::string() : ": " + error);
}

json::object ConsumersJson(const ConsumerStats& c) {
  return {{"claims", c.claims},
          {"empty_claims", c.empty_claims},
          {"jobs", c.jobs},
          {"request_errors", c.request_errors},
          {"ack_refusals", c.ack_refusals},
          {"connects", c.connects},
          {"first_error", c.first_error}};
}

json::object W1Json(const ThroughputResult& r) {
  return {{"ok", r.ok},
          {"error", r.error},
          {"queue", r.queue},
          {"jobs", r.jobs},
          {"enqueue_ms", Round(r.enqueue_ms, 1)},
          {"enqueue_rate", Round(r.enqueue_rate, 0)},
          {"process_ms", Round(r.process_ms, 1)},
          {"process_rate", Round(r.process_rate, 0)},
          {"first_pass_ms", Round(r.first_pass_ms, 1)},
          {"first_pass_rate", Round(r.first_pass_rate, 0)},
          {"wall_ms", Round(r.wall_ms, 1)},
          {"completed_once", r.tally.completed_once},
          {"lost", r.tally.lost},
          {"duplicated", r.tally.duplicated},
          {"foreign", r.tally.foreign},
          {"handler_invocations", r.tally.invocations},
          {"expected_invocations", r.expected_invocations},
          {"planned_failures", r.planned_failures},
          {"server_completed", r.server_completed},
          {"server_deadletter", r.server_deadletter},
          {"server_unfinished", r.server_unfinished},
          {"timed_out", r.timed_out},
          {"consumers", ConsumersJson(r.consumers)}};
}

json::object W2Json(const LatencyResult& r) {
  return {{"ok", r.ok},
          {"error", r.error},
          {"queue", r.queue},
          {"planned", r.planned},
          {"sent", r.sent},
          {"send_errors", r.send_errors},
          {"received", r.received},
          {"missing", r.missing},
          {"duplicated", r.duplicated},
          {"achieved_rate", Round(r.achieved_rate, 0)},
          {"max_send_lag_ms", Round(r.max_send_lag_ms, 2)},
          {"p50_ms", Round(r.latency.p50_ms, 2)},
          {"p90_ms", Round(r.latency.p90_ms, 2)},
          {"p99_ms", Round(r.latency.p99_ms, 2)},
          {"max_ms", Round(r.latency.max_ms, 2)},
          {"mean_ms", Round(r.latency.mean_ms, 2)},
          {"timed_out", r.timed_out},
          {"consumers", ConsumersJson(r.consumers)}};
}

json::object W3Json(const DeadLetterResult& r) {
  return {{"ok", r.ok},
          {"error", r.error},
          {"queue", r.queue},
          {"jobs", r.jobs},
          {"max_attempts", r.max_attempts},
          {"enqueue_ms", Round(r.enqueue_ms, 1)},
          {"time_to_all_dead_ms", Round(r.all_dead_ms, 1)},
          {"dead_count", r.dead},
          {"handler_invocations", r.invocations},
          {"expected_invocations", r.expected_invocations},
          {"jobs_with_wrong_attempt_count", r.wrong_attempts},
          {"server_unfinished", r.server_unfinished},
          {"timed_out", r.timed_out},
          {"consumers", ConsumersJson(r.consumers)}};
}

json::object W4Json(const WorkflowResult& r) {
  return {{"ok", r.ok},
          {"error", r.error},
          {"queue", r.queue},
          {"jobs", r.jobs},
          {"request_bytes", r.request_bytes},
          {"create_ms", Round(r.create_ms, 1)},
          {"fan_out_ms", Round(r.fan_out_ms, 1)},
          {"jobs_per_s", Round(r.jobs_per_s, 0)},
          {"sink_wait_ms", Round(r.sink_wait_ms, 1)},
          {"all_done_ms", Round(r.all_done_ms, 1)},
          {"workflow_status", r.workflow_status},
          {"timed_out", r.timed_out},
          {"consumers", ConsumersJson(r.consumers)}};
}

json::object W5Json(const OperationResult& r) {
  json::object o{{"ok", r.ok},
                 {"error", r.error},
                 {"queue", r.queue},
                 {"jobs", r.jobs},
                 {"dead_letter_ms", Round(r.dead_letter_ms, 1)},
                 {"operation_id", r.operation_id},
                 {"state", r.state},
                 {"matched", r.matched},
                 {"done", r.done},
                 {"failed", r.failed},
                 {"run_ms", Round(r.run_ms, 1)},
                 {"jobs_per_s", Round(r.jobs_per_s, 0)},
                 {"seen_ms", Round(r.seen_ms, 1)},
                 {"pending_after", r.pending_after},
                 {"dead_after", r.dead_after},
                 {"timed_out", r.timed_out}};
  if (r.latency_alone) o["w2_alone"] = W2Json(*r.latency_alone);
  if (r.latency_during) o["w2_during"] = W2Json(*r.latency_during);
  return o;
}

std::string AckStyle(const ClaimMode& m) {
  return m.batch_acks ? "acks ride on the next claim" : "complete/fail per job";
}

void PrintConsumers(std::ostream& out, const ConsumerStats& c) {
  out << "      consumers: " << c.claims << " claims (" << c.empty_claims << " empty), "
      << c.request_errors << " request errors, " << c.ack_refusals << " ack refusals, "
      << c.connects << " connections\n";
  if (!c.first_error.empty()) out << "      first error: " << c.first_error << "\n";
}

}  // namespace

void PrintTable(std::ostream& out, const BenchConfig& cfg, const std::string& server_url,
                const ModeResult& m) {
  out << "\n== redrive-bench, mode " << m.mode.name << ": claim limit " << m.mode.claim_limit
      << ", " << AckStyle(m.mode) << " ==\n"
      << "   server " << server_url << ", " << cfg.consumers << " consumers, " << cfg.payload_bytes
      << "-byte payloads\n";
  if (m.w1) {
    const ThroughputResult& r = *m.w1;
    out << "W1 throughput  " << r.jobs << " jobs, " << cfg.fail_pct << "% fail once, bulks of "
        << cfg.bulk_size << "\n"
        << "      enqueue " << Fmt("%.0f", r.enqueue_rate) << " jobs/s ("
        << Fmt("%.0f", r.enqueue_ms) << " ms) | process " << Fmt("%.0f", r.process_rate)
        << " jobs/s (" << Fmt("%.0f", r.process_ms) << " ms) | first pass "
        << Fmt("%.0f", r.first_pass_rate) << " jobs/s | wall " << Fmt("%.2f", r.wall_ms / 1000)
        << " s\n"
        << "      exactly once " << r.tally.completed_once << "/" << r.jobs << ", lost "
        << r.tally.lost << ", duplicated " << r.tally.duplicated << ", handler runs "
        << r.tally.invocations << "/" << r.expected_invocations << ", server completed "
        << r.server_completed << "  [" << Verdict(r.ok, r.error) << "]\n";
    PrintConsumers(out, r.consumers);
  }
  if (m.w2) {
    const LatencyResult& r = *m.w2;
    const LatencySummary& l = r.latency;
    out << "W2 latency     " << Fmt("%.0f", cfg.latency_rate) << " jobs/s for "
        << Fmt("%g", cfg.latency_seconds) << " s (achieved " << Fmt("%.0f", r.achieved_rate)
        << "/s, worst send lag " << Fmt("%.1f", r.max_send_lag_ms) << " ms)\n"
        << "      p50 " << Fmt("%.2f", l.p50_ms) << "  p90 " << Fmt("%.2f", l.p90_ms) << "  p99 "
        << Fmt("%.2f", l.p99_ms) << "  max " << Fmt("%.2f", l.max_ms) << "  mean "
        << Fmt("%.2f", l.mean_ms) << " ms\n"
        << "      sent " << r.sent << "/" << r.planned << ", received " << r.received
        << ", missing " << r.missing << ", duplicated " << r.duplicated << ", send errors "
        << r.send_errors << "  [" << Verdict(r.ok, r.error) << "]\n";
    PrintConsumers(out, r.consumers);
  }
  if (m.w3) {
    const DeadLetterResult& r = *m.w3;
    out << "W3 dead-letter " << r.jobs << " always-failing jobs, " << r.max_attempts
        << " attempts each, zero backoff\n"
        << "      all dead in " << Fmt("%.2f", r.all_dead_ms / 1000) << " s (enqueue "
        << Fmt("%.0f", r.enqueue_ms) << " ms) | dead " << r.dead << "/" << r.jobs
        << ", handler runs " << r.invocations << "/" << r.expected_invocations
        << ", wrong attempt counts " << r.wrong_attempts << "  [" << Verdict(r.ok, r.error)
        << "]\n";
    PrintConsumers(out, r.consumers);
  }
  if (m.w4) {
    const WorkflowResult& r = *m.w4;
    out << "W4 workflow    " << r.jobs << " jobs, 1 -> " << (r.jobs - 2) << " -> 1 ("
        << Fmt("%.0f", static_cast<double>(r.request_bytes) / 1024) << " KiB request)\n"
        << "      created in " << Fmt("%.0f", r.create_ms) << " ms | middle jobs "
        << Fmt("%.2f", r.fan_out_ms / 1000) << " s (" << Fmt("%.0f", r.jobs_per_s)
        << " jobs/s) | sink waited " << Fmt("%.1f", r.sink_wait_ms)
        << " ms after the last | all done " << Fmt("%.2f", r.all_done_ms / 1000) << " s  ["
        << Verdict(r.ok, r.error) << "]\n";
    PrintConsumers(out, r.consumers);
  }
  if (m.w5) {
    const OperationResult& r = *m.w5;
    out << "W5 operation   retry " << r.jobs << " dead jobs "
        << (cfg.operation_rate > 0 ? "at " + Fmt("%g", cfg.operation_rate) + "/s" : "at full speed")
        << " (dead-lettered in " << Fmt("%.2f", r.dead_letter_ms / 1000) << " s)\n"
        << "      " << r.state << ": done " << r.done << "/" << r.matched << ", failed " << r.failed
        << " in " << Fmt("%.2f", r.run_ms / 1000) << " s (" << Fmt("%.0f", r.jobs_per_s)
        << " jobs/s; seen finished after " << Fmt("%.2f", r.seen_ms / 1000)
        << " s) | queue after: pending " << r.pending_after << ", dead " << r.dead_after << "  ["
        << Verdict(r.ok, r.error) << "]\n";
    for (const auto& [label, w2] :
         {std::pair{"alone ", &r.latency_alone}, std::pair{"during", &r.latency_during}}) {
      if (!*w2) continue;
      const LatencySummary& l = (*w2)->latency;
      out << "      W2 " << label << ": p50 " << Fmt("%.2f", l.p50_ms) << "  p99 "
          << Fmt("%.2f", l.p99_ms) << "  max " << Fmt("%.2f", l.max_ms) << " ms, "
          << (*w2)->received << " jobs at " << Fmt("%.0f", (*w2)->achieved_rate) << "/s  ["
          << Verdict((*w2)->ok, (*w2)->error) << "]\n";
    }
  }
  out << "   result: " << (m.ok() ? "ok" : "FAILED") << "\n";
}

std::string JsonLine(const BenchConfig& cfg, const std::string& server_url, const ModeResult& m) {
  json::object line{{"tool", "redrive-bench"},
                    {"version", REDRIVE_VERSION},
                    {"mode", m.mode.name},
                    {"server", server_url},
                    {"config", json::object{{"jobs", cfg.jobs},
                                            {"consumers", cfg.consumers},
                                            {"claim_limit", m.mode.claim_limit},
                                            {"acks", m.mode.batch_acks ? "batch" : "each"},
                                            {"fail_pct", cfg.fail_pct},
                                            {"bulk", cfg.bulk_size},
                                            {"payload_bytes", cfg.payload_bytes},
                                            {"latency_rate", cfg.latency_rate},
                                            {"latency_seconds", cfg.latency_seconds},
                                            {"latency_producers", cfg.latency_producers},
                                            {"dlq_jobs", cfg.dlq_jobs},
                                            {"workflow_jobs", cfg.workflow_jobs},
                                            {"operation_jobs", cfg.operation_jobs},
                                            {"operation_rate", cfg.operation_rate},
                                            {"claim_wait_ms", cfg.claim_wait.count()}}},
                    {"ok", m.ok()}};
  if (m.w1) line["w1"] = W1Json(*m.w1);
  if (m.w2) line["w2"] = W2Json(*m.w2);
  if (m.w3) line["w3"] = W3Json(*m.w3);
  if (m.w4) line["w4"] = W4Json(*m.w4);
  if (m.w5) line["w5"] = W5Json(*m.w5);
  return WriteJson(line);
}

}  // namespace redrive::bench
