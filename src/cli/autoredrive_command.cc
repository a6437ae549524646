// `redrive dlq autoredrive list|show|set|off|delete`: a queue's auto-redrive
// policy (core/autoredrive.h), the redrive that heals itself.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/output.h"
#include "cli/table.h"
#include "core/time_format.h"
#include "wire/autoredrive_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

boost::json::object AutoredriveJson(const sdk::Autoredrive& a) {
  boost::json::object o = wire::AutoredriveToJson(a.policy, a.state, a.eligible_count);
  o["state"].as_object()["batch_redriven"] = a.batch_redriven;
  return o;
}

// "canary: 2 of 3 redriven", "backed off: next check in 9m", "off".
std::string PhaseText(const sdk::Autoredrive& a) {
  const AutoredriveState& s = a.state;
  switch (s.phase) {
    case AutoredrivePhase::kCanary:
    case AutoredrivePhase::kWave:
      return (s.phase == AutoredrivePhase::kCanary ? std::string("canary")
                                                   : "wave " + std::to_string(s.wave)) +
             ": " + std::to_string(a.batch_redriven) + " of " + std::to_string(s.batch_target) +
             " redriven";
    case AutoredrivePhase::kCooling:
    case AutoredrivePhase::kBackedOff:
      return std::string(s.phase == AutoredrivePhase::kCooling ? "cooling" : "backed off") +
             (s.next_check_at ? ": next check " + FormatRelative(*s.next_check_at, Now()) : "");
    case AutoredrivePhase::kIdle:
      break;
  }
  return "off";
}

int PrintOne(CliContext& ctx, const Result<sdk::Autoredrive>& a) {
  if (!a.ok()) return ReportError(a.status());
  if (ctx.flags.json) {
    PrintJson(AutoredriveJson(*a));
    return kExitOk;
  }
  const AutoredrivePolicy& p = a->policy;
  const AutoredriveState& s = a->state;
  Details d;
  d.Add("Queue", p.queue_name);
  d.Add("Enabled", p.enabled ? "yes" : "no");
  d.Add("Error class", p.fingerprint);
  if (p.reason) d.Add("Dead reason", DeadReasonName(*p.reason));
  d.Add("Phase", PhaseText(*a));
  d.Add("Eligible now", std::to_string(a->eligible_count));
  d.Add("Cool-down", FormatDuration(p.cooldown) + " (now " + FormatDuration(s.current_cooldown) +
                         ", at most " + FormatDuration(p.max_cooldown) + ")");
  d.Add("Canaries", std::to_string(p.canary_size) + ", then waves x4");
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%g/s", p.rate_per_second);
  d.Add("Rate", rate);
  d.Add("Revivals per job", "at most " + std::to_string(p.max_revivals_per_job));
  d.Add("Revived in all", std::to_string(s.total_revived));
  d.Add("Backoffs", std::to_string(s.backoffs));
  if (s.last_decision) {
    d.Add("Last decision", std::string(AutoredriveDecisionName(*s.last_decision)) + " " +
                               TimeDetail(s.last_decision_at, Now()) + ": " + s.last_reason);
  }
  d.Add("Updated by", p.updated_by);
  d.Print(std::cout);
  return kExitOk;
}

int RunList(CliContext& ctx) {
  auto all = ctx.client().ListAutoredrive();
  if (!all.ok()) return ReportError(all.status());
  if (ctx.flags.json) {
    boost::json::array array;
    for (const auto& a : *all) array.push_back(AutoredriveJson(a));
    PrintJson(array);
    return kExitOk;
  }
  if (all->empty()) {
    std::cout << "no auto-redrive policies\n";
    return kExitOk;
  }
  Table table({"QUEUE", "ENABLED", "CLASS", "PHASE", "ELIGIBLE", "REVIVED", "BACKOFFS"});
  for (const auto& a : *all) {
    table.AddRow({a.policy.queue_name, a.policy.enabled ? "yes" : "no", a.policy.fingerprint,
                  PhaseText(a), std::to_string(a.eligible_count),
                  std::to_string(a.state.total_revived), std::to_string(a.state.backoffs)});
  }
  table.Print(std::cout);
  return kExitOk;
}

struct SetFlags {
  std::string queue, fingerprint, reason, cooldown, max_cooldown, rate;
  std::optional<int> canary, max_revivals;
  bool off = false;
};

// The queue's policy as it stands (or the defaults), with the flags given.
Result<AutoredrivePolicy> PolicyOf(CliContext& ctx, const SetFlags& f) {
  AutoredrivePolicy p;
  auto existing = ctx.client().GetAutoredrive(f.queue);
  if (existing.ok()) {
    p = existing->policy;
  } else if (existing.status().code() != ErrorCode::kNotFound) {
    return existing.status();
  }
  p.queue_name = f.queue;
  p.enabled = !f.off;
  if (!f.fingerprint.empty()) p.fingerprint = f.fingerprint;
  if (p.fingerprint.empty()) {
    return Status::Validation("fingerprint",
                              "--fingerprint is required for a new policy (redrive dlq summary "
                              "lists each error class's fingerprint)");
  }
  if (!f.reason.empty()) {
    p.reason = ParseDeadReason(f.reason);
    if (!p.reason) {
      return Status::Validation("dead_reason", "--reason must be one of " + DeadReasonNames());
    }
  }
  auto seconds = [](const std::string& text) {
    return std::chrono::seconds(CeilSeconds(*ParseDuration(text)));
  };
  if (!f.cooldown.empty()) p.cooldown = seconds(f.cooldown);
  if (!f.max_cooldown.empty()) p.max_cooldown = seconds(f.max_cooldown);
  if (f.max_cooldown.empty() && p.max_cooldown < p.cooldown) p.max_cooldown = p.cooldown;
  if (!f.rate.empty()) p.rate_per_second = *ParseRate(f.rate);
  if (f.canary) p.canary_size = *f.canary;
  if (f.max_revivals) p.max_revivals_per_job = *f.max_revivals;
  return p;
}

void AddSet(CLI::App& group, CliContext& ctx) {
  auto* cmd = group.add_subcommand("set", "Create or change a queue's policy (and switch it on)");
  auto f = std::make_shared<SetFlags>();
  cmd->add_option("QUEUE", f->queue, "Queue name")->required();
  cmd->add_option("--fingerprint", f->fingerprint,
                  "The error class to heal (its fingerprint, as dlq summary shows it)");
  cmd->add_option("--reason", f->reason, "Only dead jobs of this dead reason");
  cmd->add_option("--cooldown", f->cooldown, "Wait this long before the canaries (5m)")
      ->check(CheckDuration);
  cmd->add_option("--max-cooldown", f->max_cooldown,
                  "The longest cool-down backing off may reach (6h)")
      ->check(CheckDuration);
  cmd->add_option("--canary", f->canary, "Canaries redriven first (1..100; 3)");
  cmd->add_option("--rate", f->rate, "At most this many redrives (10/s)")->check(CheckRate);
  cmd->add_option("--max-revivals", f->max_revivals,
                  "Revive one job automatically at most this many times (1..100; 3)");
  cmd->add_flag("--off", f->off, "Store the policy switched off");
  cmd->footer(
      "Flags left out keep the queue's current values (or the defaults for a new policy).\n"
      "Examples:\n"
      "  redrive dlq autoredrive set payments --fingerprint 3f2a9c0d11b4e6a7\n"
      "  redrive dlq autoredrive set payments --cooldown 10m --canary 5 --rate 50/s");
  ctx.OnRun(cmd, [&ctx, f] {
    Result<AutoredrivePolicy> p = PolicyOf(ctx, *f);
    if (!p.ok()) return ReportError(p.status());
    return PrintOne(ctx, ctx.client().SetAutoredrive(*p));
  });
}

void AddOffDelete(CLI::App& group, CliContext& ctx) {
  auto* off = group.add_subcommand("off", "Switch a queue's policy off (its settings stay)");
  auto name = std::make_shared<std::string>();
  off->add_option("QUEUE", *name, "Queue name")->required();
  off->footer("Example:\n  redrive dlq autoredrive off payments");
  ctx.OnRun(off, [&ctx, name] {
    auto existing = ctx.client().GetAutoredrive(*name);
    if (!existing.ok()) return ReportError(existing.status());
    AutoredrivePolicy p = existing->policy;
    p.enabled = false;
    return PrintOne(ctx, ctx.client().SetAutoredrive(p));
  });

  auto* del = group.add_subcommand("delete", "Remove a queue's policy");
  auto del_name = std::make_shared<std::string>();
  del->add_option("QUEUE", *del_name, "Queue name")->required();
  del->footer("Example:\n  redrive dlq autoredrive delete payments");
  ctx.OnRun(del, [&ctx, del_name] {
    Status st = ctx.client().DeleteAutoredrive(*del_name);
    if (!st.ok()) return ReportError(st);
    if (!ctx.flags.json) std::cout << "deleted the auto-redrive policy of " << *del_name << "\n";
    return kExitOk;
  });
}

}  // namespace

void AddAutoredriveCommand(CLI::App& dlq, CliContext& ctx) {
  auto* group = dlq.add_subcommand(
      "autoredrive", "Redrive that heals itself: canaries, then widening waves, per queue");
  group->require_subcommand(1);
  auto* list = group->add_subcommand("list", "Every queue's policy and live phase");
  list->footer("Example:\n  redrive dlq autoredrive list");
  ctx.OnRun(list, [&ctx] { return RunList(ctx); });
  auto* show = group->add_subcommand("show", "A queue's policy and live phase");
  auto name = std::make_shared<std::string>();
  show->add_option("QUEUE", *name, "Queue name")->required();
  show->footer("Example:\n  redrive dlq autoredrive show payments");
  ctx.OnRun(show, [&ctx, name] { return PrintOne(ctx, ctx.client().GetAutoredrive(*name)); });
  AddSet(*group, ctx);
  AddOffDelete(*group, ctx);
}

}  // namespace redrive::cli
