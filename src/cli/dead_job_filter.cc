#include "cli/dead_job_filter.h"

#include <boost/json/array.hpp>
#include <iostream>
#include <vector>

#include "cli/job_views.h"
#include "cli/output.h"
#include "core/clock.h"
#include "core/closest_classes.h"
#include "core/error_fingerprint.h"
#include "wire/job_json.h"

namespace redrive::cli {

namespace {

std::string CheckReason(const std::string& text) {
  return ParseDeadReason(text) ? ""
                               : "'" + text + "' is not a dead reason (" + DeadReasonNames() + ")";
}

std::string CheckFingerprint(const std::string& text) {
  return IsErrorFingerprint(text) ? ""
                                  : "'" + text +
                                        "' is not an error fingerprint (16 characters 0-9 a-f, "
                                        "as `dlq summary` shows them)";
}

// The command that redrives exactly one class.
std::string RetryCommandFor(const DeadLetterGroup& g) {
  std::string command = "redrive dlq retry --queue " + g.queue_name;
  if (g.dead_reason != DeadReason::kNone) {
    command += " --reason " + std::string(DeadReasonName(g.dead_reason));
  }
  if (g.fingerprint) {
    command += " --fingerprint " + *g.fingerprint;
  } else if (g.error) {
    command += " --error-prefix " + ShellQuoted(*g.error);
  }
  return command + " --dry-run";
}

constexpr size_t kClosestShown = 5;
constexpr int kClassesCompared = 100;

// The classes of the queue asked (of every queue when that queue has no dead
// job: its name may be mistyped), most like what was asked first — as the
// server ranks them for the API's closest_classes.
Result<std::vector<DeadLetterGroup>> ClosestClassesTo(CliContext& ctx,
                                                      const DeadJobFilterFlags& f) {
  sdk::DlqSummaryFilter scope;
  scope.queue_name = NonEmpty(f.queue);
  scope.limit = kClassesCompared;
  auto groups = ctx.client().DlqSummary(scope);
  if (!groups.ok()) return groups.status();
  if (groups->empty() && scope.queue_name) {
    scope.queue_name.reset();
    groups = ctx.client().DlqSummary(scope);
    if (!groups.ok()) return groups.status();
  }
  ClassQuery asked;
  asked.queue_name = NonEmpty(f.queue);
  if (!f.reason.empty()) asked.dead_reason = ParseDeadReason(f.reason);
  asked.error_prefix = NonEmpty(f.error_prefix);
  return ClosestClasses(std::move(*groups), asked, kClosestShown);
}

}  // namespace

std::optional<std::string> NonEmpty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

void AddFilterOptions(CLI::App* cmd, DeadJobFilterFlags& f, const std::string& queue_help) {
  cmd->add_option("--queue,-q", f.queue, queue_help);
  cmd->add_option("--reason", f.reason, "Only this dead reason")->check(CheckReason);
  cmd->add_option("--tag", f.tag, "Only jobs with this tag: key=value, or key");
  cmd->add_option("--error-prefix", f.error_prefix,
                  "Only jobs whose last error starts with this (exact; `dlq summary` "
                  "lists the errors)");
  cmd->add_option("--fingerprint", f.fingerprint,
                  "Only this error class (its FINGERPRINT in `dlq summary`)")
      ->check(CheckFingerprint);
}

boost::json::object SelectorOf(const DeadJobFilterFlags& f) {
  boost::json::object sel;
  if (!f.queue.empty()) sel["queue_name"] = f.queue;
  if (!f.reason.empty()) sel["dead_reason"] = f.reason;
  if (!f.tag.empty()) sel["tag"] = f.tag;
  if (!f.error_prefix.empty()) sel["error_prefix"] = f.error_prefix;
  return sel;
}

bool HasFilter(const DeadJobFilterFlags& f) {
  return !f.queue.empty() || !f.reason.empty() || !f.tag.empty() || !f.error_prefix.empty() ||
         !f.fingerprint.empty();
}

std::string Describe(const DeadJobFilterFlags& f, const std::string& older_than,
                     const std::string& no_queue) {
  std::vector<std::string> clauses;
  if (!f.reason.empty()) clauses.push_back("whose reason is " + f.reason);
  if (!f.tag.empty()) clauses.push_back("tagged " + f.tag);
  if (!f.error_prefix.empty()) {
    clauses.push_back("whose error starts with \"" + f.error_prefix + "\"");
  }
  if (!f.fingerprint.empty()) clauses.push_back("of error class " + f.fingerprint);
  if (!older_than.empty()) clauses.push_back("that died more than " + older_than + " ago");
  std::string what = f.queue.empty() ? "dead jobs of " + no_queue : "dead jobs of queue " + f.queue;
  for (size_t i = 0; i < clauses.size(); ++i) what += (i == 0 ? " " : ", ") + clauses[i];
  return what;
}

void PrintNoMatch(CliContext& ctx, const DeadJobFilterFlags& f, const std::string& what) {
  std::cout << "no " << what << "\n";
  auto closest = ClosestClassesTo(ctx, f);
  if (!closest.ok() || closest->empty()) {
    if (closest.ok()) std::cout << "the DLQ is empty\n";
    return;
  }
  std::cout << "\nThe closest error classes in the DLQ:\n";
  PrintDeadLetterGroupTable(std::cout, *closest, SystemClock().Now());
  std::cout << "\nTo act on one, pass its fingerprint, e.g.\n  " << RetryCommandFor((*closest)[0])
            << "\n";
}

void AddClosestJson(CliContext& ctx, const DeadJobFilterFlags& f, boost::json::object& out) {
  if (!HasFilter(f)) return;
  auto closest = ClosestClassesTo(ctx, f);
  if (!closest.ok() || closest->empty()) return;
  boost::json::array classes;
  for (const DeadLetterGroup& g : *closest) classes.push_back(wire::DeadLetterGroupToJson(g));
  out["closest_classes"] = std::move(classes);
}
}  // namespace redrive::cli
