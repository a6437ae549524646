#include "cli/job_views.h"

#include <boost/json/array.hpp>

#include "cli/output.h"
#include "cli/table.h"
#include "core/time_format.h"
#include "wire/job_json.h"

namespace redrive::cli {
namespace {

std::string Tries(const Job& job) {
  return std::to_string(job.retry_count) + "/" + std::to_string(job.max_retries);
}

std::string DeadReasonText(DeadReason reason) { return OrDash(DeadReasonName(reason)); }

}  // namespace

void PrintJobTable(std::ostream& out, const std::vector<Job>& jobs, Instant now) {
  Table table({"ID", "QUEUE", "STATUS", "PRI", "TRIES", "TAGS", "CREATED"});
  for (const Job& job : jobs) {
    table.AddRow({job.id, job.queue_name, JobStatusName(job.status), std::to_string(job.priority),
                  Tries(job), Ellipsize(TagsCell(job.tags), 40), TimeCell(job.created_at, now)});
  }
  table.Print(out);
}

void PrintDeadJobTable(std::ostream& out, const std::vector<Job>& jobs, Instant now) {
  Table table({"ID", "QUEUE", "REASON", "TRIES", "DIED", "ERROR"});
  for (const Job& job : jobs) {
    table.AddRow({job.id, job.queue_name, DeadReasonText(job.dead_reason), Tries(job),
                  TimeCell(job.deadlettered_at, now), Ellipsize(job.last_error.value_or("-"), 60)});
  }
  table.Print(out);
}

void PrintDeadLetterGroupTable(std::ostream& out, const std::vector<DeadLetterGroup>& groups,
                               Instant now) {
  constexpr size_t kErrorColumnWidth = 60;
  Table table({"COUNT", "QUEUE", "REASON", "FINGERPRINT", "OLDEST", "NEWEST", "ERROR"});
  for (const DeadLetterGroup& g : groups) {
    std::vector<std::string> lines;
    if (!g.error) lines.push_back("(no error)");
    if (g.normalized_error) lines = Wrap(*g.normalized_error, kErrorColumnWidth);
    if (g.error && g.error != g.normalized_error) {
      for (std::string& line : Wrap("e.g. " + *g.error, kErrorColumnWidth)) {
        lines.push_back(std::move(line));
      }
    }
    table.AddRow({std::to_string(g.count), g.queue_name, DeadReasonText(g.dead_reason),
                  g.fingerprint.value_or("-"), TimeCell(g.oldest_deadlettered_at, now),
                  TimeCell(g.newest_deadlettered_at, now), lines[0]});
    for (size_t i = 1; i < lines.size(); ++i) table.AddRow({"", "", "", "", "", "", lines[i]});
  }
  table.Print(out);
}

void PrintJobDetail(std::ostream& out, const Job& job, Instant now) {
  Details d;
  d.Add("ID", job.id);
  d.Add("Queue", job.queue_name);
  d.Add("Status", JobStatusName(job.status));
  d.Add("Priority", std::to_string(job.priority));
  d.Add("Retries", Tries(job) + " (attempts " + std::to_string(job.attempts) + ", lease expiries " +
                       std::to_string(job.lease_expiries) + ")");
  d.Add("Timeout", FormatDuration(std::chrono::seconds(job.timeout_seconds)));
  d.Add("Backoff", BackoffText(job.backoff));
  d.Add("Tags", TagsCell(job.tags));
  d.Add("Idempotency key", job.idempotency_key.value_or("-"));
  d.Add("Created", TimeDetail(job.created_at, now));
  d.Add("Scheduled", TimeDetail(job.scheduled_at, now));
  d.Add("Started", TimeDetail(job.started_at, now));
  d.Add("Finished", TimeDetail(job.completed_at, now));
  d.Add("Expires", TimeDetail(job.expires_at, now));
  if (job.status == JobStatus::kProcessing) {
    d.Add("Worker", job.assigned_worker_id.value_or("-"));
    d.Add("Lease expires", TimeDetail(job.lease_expires_at, now));
  }
  if (job.status == JobStatus::kDeadletter) {
    d.Add("Dead reason", DeadReasonText(job.dead_reason));
    d.Add("Dead since", TimeDetail(job.deadlettered_at, now));
  }
  d.Add("Last error", job.last_error.value_or("-"));
  d.Add("Payload", job.payload.empty() ? "-" : job.payload);
  d.Add("Result", job.result.value_or("-"));
  d.Print(out);
}

void PrintHistory(std::ostream& out, const std::vector<HistoryEntry>& history, Instant now) {
  Table table({"TIME", "EVENT", "WORKER", "DETAILS"});
  for (const HistoryEntry& e : history) {
    table.AddRow({FormatTime(e.created_at) + " (" + TimeCell(e.created_at, now) + ")", e.event_type,
                  e.worker_id.value_or("-"),
                  e.details_json == "{}" ? "-" : Ellipsize(e.details_json, 100)});
  }
  table.Print(out);
}

void PrintJobSummariesJson(const std::vector<Job>& jobs) {
  boost::json::array array;
  for (const Job& job : jobs) array.push_back(wire::JobSummaryToJson(job));
  PrintJson(array);
}

void PrintDeadLetterGroupsJson(const std::vector<DeadLetterGroup>& groups) {
  boost::json::array array;
  for (const DeadLetterGroup& g : groups) array.push_back(wire::DeadLetterGroupToJson(g));
  PrintJson(array);
}

void PrintHistoryJson(const std::vector<HistoryEntry>& history) {
  boost::json::array array;
  for (const HistoryEntry& e : history) array.push_back(wire::HistoryEntryToJson(e));
  PrintJson(array);
}

}  // namespace redrive::cli
