// `redrive audit list`: the operator audit log, newest first — who changed
// what, when, and why.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/output.h"
#include "cli/table.h"
#include "core/time_format.h"
#include "wire/audit_json.h"

namespace redrive::cli {
namespace {

struct AuditFlags {
  std::string actor, action, target, since, until, cursor;
  int limit = 50;
};

// An RFC 3339 time, or a duration meaning that long ago ("2h", "7d").
std::optional<Instant> ParseWhen(const std::string& text, Instant now) {
  if (std::optional<Instant> t = ParseTime(text)) return t;
  if (std::optional<std::chrono::milliseconds> d = ParseDuration(text)) {
    return now - std::chrono::duration_cast<Micros>(*d);
  }
  return std::nullopt;
}

std::string CheckWhen(const std::string& text) {
  return ParseWhen(text, SystemClock().Now())
             ? ""
             : "expected an RFC 3339 time (2027-01-15T08:00:00Z) or how long ago (30m, 2h, 7d)";
}

std::optional<std::string> Set(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

// "dlq.retry q=payments (12 jobs)" style: the target or selection, the count.
std::string WhatCell(const AuditEntry& e) {
  std::string what;
  if (!e.targets.empty()) {
    what = e.targets.front();
    if (e.targets.size() > 1) what += " +" + std::to_string(e.targets.size() - 1);
  } else if (e.selector) {
    what = *e.selector;
  }
  if (e.count) what += (what.empty() ? "" : " ") + std::string("(") + Plural(*e.count, "job") + ")";
  return OrDash(what);
}

int RunList(CliContext& ctx, const AuditFlags& f) {
  const Instant now = SystemClock().Now();
  sdk::AuditQuery q;
  q.actor = Set(f.actor);
  q.action = Set(f.action);
  q.target = Set(f.target);
  if (!f.since.empty()) q.since = ParseWhen(f.since, now);
  if (!f.until.empty()) q.until = ParseWhen(f.until, now);
  q.limit = f.limit;
  q.cursor = Set(f.cursor);
  auto page = ctx.client().ListAudit(q);
  if (!page.ok()) return ReportError(page.status());
  if (ctx.flags.json) {
    boost::json::array entries;
    for (const AuditEntry& e : page->entries) {
      entries.push_back(wire::AuditEntryToJson(e, !e.client_address.empty()));
    }
    boost::json::object out{{"entries", std::move(entries)}, {"next_cursor", nullptr}};
    if (page->next_cursor) out["next_cursor"] = *page->next_cursor;
    PrintJson(out);
    return kExitOk;
  }
  if (page->entries.empty()) {
    std::cout << "no audit entries\n";
    return kExitOk;
  }
  Table table({"WHEN", "ACTOR", "ACTION", "WHAT", "STATUS", "REASON"});
  for (const AuditEntry& e : page->entries) {
    table.AddRow({TimeCell(e.at, now), e.actor, e.action, WhatCell(e), std::to_string(e.status),
                  OrDash(e.reason.value_or(""))});
  }
  table.Print(std::cout);
  if (page->next_cursor) {
    std::cout << "more: redrive audit list --cursor " << *page->next_cursor << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddAuditCommand(CLI::App& app, CliContext& ctx) {
  auto* audit = app.add_subcommand("audit", "The operator audit log: who changed what, and why");
  audit->require_subcommand(1);
  auto flags = std::make_shared<AuditFlags>();
  auto* list = audit->add_subcommand("list", "List operator changes, newest first");
  list->add_option("--actor", flags->actor,
                   "Only this key's name or label (oncall, admin#1a2b3c4d)");
  list->add_option("--action", flags->action, "Only this action (dlq.retry, queue.pause, ...)");
  list->add_option("--target", flags->target,
                   "Only changes of this (job:ID, queue:NAME, webhook:ID)");
  list->add_option("--since", flags->since, "From this time, or this long ago (2h, 7d)")
      ->check(CheckWhen);
  list->add_option("--until", flags->until, "Before this time, or this long ago")->check(CheckWhen);
  list->add_option("--limit", flags->limit, "Entries per page")
      ->check(CLI::Range(1, 200))
      ->capture_default_str();
  list->add_option("--cursor", flags->cursor, "Continue after an earlier page");
  list->footer(
      "Examples:\n  redrive audit list --since 12h\n  redrive audit list --target queue:payments\n"
      "  redrive audit list --actor oncall --action dlq.retry --json");
  ctx.OnRun(list, [&ctx, flags] { return RunList(ctx, *flags); });
}

}  // namespace redrive::cli
