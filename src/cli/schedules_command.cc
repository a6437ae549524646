// `redrive schedules list|get|create|update|delete|pause|resume|trigger|history`.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/table.h"
#include "core/time_format.h"
#include "wire/schedule_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

std::string StateText(const Schedule& s) { return s.is_active ? "active" : "paused"; }

int PrintSchedule(CliContext& ctx, const Result<Schedule>& s, const std::string& verb = "") {
  if (!s.ok()) return ReportError(s.status());
  if (ctx.flags.json) {
    PrintJson(wire::ScheduleToJson(*s));
    return kExitOk;
  }
  if (!verb.empty()) std::cout << verb << " " << s->id << "\n";
  Details d;
  d.Add("Schedule", s->id);
  d.Add("Name", s->name);
  if (s->description) d.Add("Description", *s->description);
  d.Add("Cron", s->cron_expression + " (" + s->timezone + ")");
  d.Add("Queue", s->queue_name);
  d.Add("State", StateText(*s));
  d.Add("Next run", TimeDetail(s->next_run_at, Now()));
  d.Add("Last run", TimeDetail(s->last_run_at, Now()));
  d.Add("Runs", std::to_string(s->run_count));
  d.Add("Payload", s->payload_template);
  d.Add("Job settings", "priority " + std::to_string(s->priority) + ", max retries " +
                            std::to_string(s->max_retries) + ", timeout " +
                            std::to_string(s->timeout_seconds) + "s");
  if (!s->tags.empty()) d.Add("Tags", TagsCell(s->tags));
  d.Add("Missed runs", MissedRunPolicyName(s->missed_run_policy) +
                           (s->missed_run_policy == MissedRunPolicy::kBackfill
                                ? " (up to " + std::to_string(s->backfill_limit) + ")"
                                : std::string()));
  d.Add("Overlap", OverlapPolicyName(s->overlap_policy));
  d.Print(std::cout);
  return kExitOk;
}

int RunList(CliContext& ctx, const sdk::ListSchedulesFilter& filter) {
  auto list = ctx.client().ListSchedules(filter);
  if (!list.ok()) return ReportError(list.status());
  if (ctx.flags.json) {
    boost::json::array out;
    for (const Schedule& s : *list) out.push_back(wire::ScheduleToJson(s));
    PrintJson(out);
    return kExitOk;
  }
  if (list->empty()) {
    std::cout << "no schedules\n";
    return kExitOk;
  }
  Table table({"ID", "NAME", "CRON", "ZONE", "QUEUE", "STATE", "NEXT RUN", "RUNS"});
  for (const Schedule& s : *list) {
    table.AddRow({s.id, s.name, s.cron_expression, s.timezone, s.queue_name, StateText(s),
                  TimeCell(s.next_run_at, Now()), std::to_string(s.run_count)});
  }
  table.Print(std::cout);
  return kExitOk;
}

int RunHistory(CliContext& ctx, const std::string& id, std::optional<int> limit) {
  auto runs = ctx.client().ScheduleHistory(id, limit);
  if (!runs.ok()) return ReportError(runs.status());
  if (ctx.flags.json) {
    boost::json::array out;
    for (const auto& r : *runs) {
      boost::json::object o = wire::ScheduleRunToJson(r.run, std::nullopt);
      o["status"] = r.status;
      o["job_status"] = r.job_status ? boost::json::value(*r.job_status) : nullptr;
      out.push_back(std::move(o));
    }
    PrintJson(out);
    return kExitOk;
  }
  if (runs->empty()) {
    std::cout << "no runs\n";
    return kExitOk;
  }
  Table table({"FIRE TIME", "KIND", "STATUS", "JOB", "ERROR"});
  for (const auto& r : *runs) {
    table.AddRow({FormatTime(r.run.fire_time), ScheduleRunKindName(r.run.kind), r.status,
                  OrDash(r.run.job_id.value_or("")), OrDash(r.run.error.value_or(""))});
  }
  table.Print(std::cout);
  return kExitOk;
}

// The flags create and update share; unset ones are not sent.
struct SpecFlags {
  std::optional<std::string> name, description, cron, timezone, queue, payload, missed, overlap;
  std::optional<int> priority, max_retries, timeout_seconds, backfill_limit;
  std::vector<std::string> tags;
  bool paused = false, active = false;
};

void AddSpecFlags(CLI::App& cmd, SpecFlags& f) {
  cmd.add_option("--name", f.name, "Name (1..255 bytes)");
  cmd.add_option("--description", f.description, "Free text (≤ 1000 bytes)");
  cmd.add_option("--cron", f.cron, "Cron expression: 5 or 6 fields, or @hourly, @every 30s, ...");
  cmd.add_option("--timezone,--tz", f.timezone, "IANA time zone of the expression (UTC)");
  cmd.add_option("--queue", f.queue, "Queue each job goes to");
  cmd.add_option("--payload", f.payload, "Each job's payload, as JSON ({})");
  cmd.add_option("--priority", f.priority, "Each job's priority (-100..100)");
  cmd.add_option("--max-retries", f.max_retries, "Each job's max retries (0..100)");
  cmd.add_option("--timeout-seconds", f.timeout_seconds, "Each job's timeout in seconds");
  cmd.add_option("--tag", f.tags, "key=value on each job; repeatable")->check(CheckTag);
  cmd.add_option("--missed-run-policy", f.missed, "skip, run_once or backfill");
  cmd.add_option("--overlap-policy", f.overlap, "allow, skip_if_running or cancel_previous");
  cmd.add_option("--backfill-limit", f.backfill_limit, "Most missed runs a backfill enqueues");
  cmd.add_flag("--paused", f.paused, "Inactive: fires only when triggered");
}

Result<sdk::ScheduleSpec> MakeSpec(const SpecFlags& f) {
  sdk::ScheduleSpec s;
  s.name = f.name;
  s.description = f.description;
  s.cron_expression = f.cron;
  s.timezone = f.timezone;
  s.queue_name = f.queue;
  if (f.payload) {
    boost::system::error_code ec;
    boost::json::value payload = boost::json::parse(*f.payload, ec);
    if (ec) return Status::Validation("payload", "the payload is not JSON: " + ec.message());
    s.payload_template = std::move(payload);
  }
  s.priority = f.priority;
  s.max_retries = f.max_retries;
  s.timeout_seconds = f.timeout_seconds;
  if (!f.tags.empty()) {
    s.tags.emplace();
    for (const auto& tag : f.tags) s.tags->insert(*SplitTag(tag));
  }
  s.missed_run_policy = f.missed;
  s.overlap_policy = f.overlap;
  s.backfill_limit = f.backfill_limit;
  if (f.paused) s.is_active = false;
  if (f.active) s.is_active = true;
  return s;
}

void AddReads(CLI::App& schedules, CliContext& ctx) {
  auto* list = schedules.add_subcommand("list", "List schedules with their next run");
  auto filter = std::make_shared<sdk::ListSchedulesFilter>();
  list->add_option("--queue", filter->queue_name, "Only schedules of this queue");
  list->add_option("--limit", filter->limit, "At most this many (1..500)");
  list->footer("Example:\n  redrive schedules list --queue reports");
  ctx.OnRun(list, [&ctx, filter] { return RunList(ctx, *filter); });

  auto* get = schedules.add_subcommand("get", "Show a schedule");
  get->alias("show");
  auto id = std::make_shared<std::string>();
  get->add_option("ID", *id, "Schedule id")->required();
  ctx.OnRun(get, [&ctx, id] { return PrintSchedule(ctx, ctx.client().GetSchedule(*id)); });

  auto* history = schedules.add_subcommand("history", "A schedule's runs, newest first");
  auto hid = std::make_shared<std::string>();
  auto limit = std::make_shared<std::optional<int>>();
  history->add_option("ID", *hid, "Schedule id")->required();
  history->add_option("--limit", *limit, "At most this many runs (1..500, default 50)");
  ctx.OnRun(history, [&ctx, hid, limit] { return RunHistory(ctx, *hid, *limit); });
}

void AddWrites(CLI::App& schedules, CliContext& ctx) {
  auto* create = schedules.add_subcommand("create", "Create a schedule");
  auto cf = std::make_shared<SpecFlags>();
  AddSpecFlags(*create, *cf);
  create->footer(
      "Example:\n"
      "  redrive schedules create --name nightly --cron '0 30 2 * * *' --tz Europe/Berlin \\\n"
      "    --queue reports --payload '{\"kind\":\"nightly\"}'");
  ctx.OnRun(create, [&ctx, cf] {
    if (!cf->name || !cf->cron || !cf->queue) {
      return UsageError("schedules create: --name, --cron and --queue are required");
    }
    Result<sdk::ScheduleSpec> spec = MakeSpec(*cf);
    if (!spec.ok()) return UsageError(spec.status().message());
    return PrintSchedule(ctx, ctx.client().CreateSchedule(*spec), "created");
  });

  auto* update = schedules.add_subcommand("update", "Change a schedule's given fields");
  auto uf = std::make_shared<SpecFlags>();
  auto uid = std::make_shared<std::string>();
  update->add_option("ID", *uid, "Schedule id")->required();
  AddSpecFlags(*update, *uf);
  update->add_flag("--active", uf->active, "Active again (as resume)");
  update->footer(
      "Example:\n  redrive schedules update ID --cron '@hourly' --overlap-policy "
      "skip_if_running");
  ctx.OnRun(update, [&ctx, uf, uid] {
    Result<sdk::ScheduleSpec> spec = MakeSpec(*uf);
    if (!spec.ok()) return UsageError(spec.status().message());
    return PrintSchedule(ctx, ctx.client().UpdateSchedule(*uid, *spec), "updated");
  });

  auto* del = schedules.add_subcommand("delete", "Delete a schedule (its jobs stay)");
  auto did = std::make_shared<std::string>();
  del->add_option("ID", *did, "Schedule id")->required();
  ctx.OnRun(del, [&ctx, did] {
    Status st = ctx.client().DeleteSchedule(*did);
    if (!st.ok()) return ReportError(st);
    if (!ctx.flags.json) std::cout << "deleted " << *did << "\n";
    return kExitOk;
  });
}

void AddActions(CLI::App& schedules, CliContext& ctx) {
  auto* pause = schedules.add_subcommand("pause", "Stop firing (trigger still works)");
  auto pid = std::make_shared<std::string>();
  pause->add_option("ID", *pid, "Schedule id")->required();
  ctx.OnRun(pause,
            [&ctx, pid] { return PrintSchedule(ctx, ctx.client().PauseSchedule(*pid), "paused"); });

  auto* resume = schedules.add_subcommand("resume", "Fire again, from now (no catch-up)");
  auto rid = std::make_shared<std::string>();
  resume->add_option("ID", *rid, "Schedule id")->required();
  ctx.OnRun(resume, [&ctx, rid] {
    return PrintSchedule(ctx, ctx.client().ResumeSchedule(*rid), "resumed");
  });

  auto* trigger = schedules.add_subcommand("trigger", "Enqueue the schedule's job now");
  auto tid = std::make_shared<std::string>();
  trigger->add_option("ID", *tid, "Schedule id")->required();
  ctx.OnRun(trigger, [&ctx, tid] {
    auto t = ctx.client().TriggerSchedule(*tid);
    if (!t.ok()) return ReportError(t.status());
    if (ctx.flags.json) {
      PrintJson(boost::json::object{{"job_id", t->job_id},
                                    {"triggered_at", FormatTime(t->triggered_at)}});
    } else {
      std::cout << "enqueued job " << t->job_id << "\n";
    }
    return kExitOk;
  });
}

}  // namespace

void AddSchedulesCommand(CLI::App& app, CliContext& ctx) {
  auto* schedules = app.add_subcommand(
      "schedules", "Cron schedules: list, create, change, pause, trigger and their history");
  schedules->require_subcommand(1);
  AddReads(*schedules, ctx);
  AddWrites(*schedules, ctx);
  AddActions(*schedules, ctx);
}

}  // namespace redrive::cli
