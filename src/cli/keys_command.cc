// `redrive keys list|create|revoke`: the API keys kept by the server (admin
// only). A created key's secret is printed once; the server keeps only its
// hash. Bootstrap keys (--api-key, REDRIVE_API_KEYS) are not listed.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/output.h"
#include "cli/table.h"
#include "core/time_format.h"

namespace redrive::cli {
namespace {

struct CreateFlags {
  std::string name;
  std::string role;
  std::vector<std::string> queues;
  std::string expires_in;
};

std::string QueuesCell(const std::vector<std::string>& queues) {
  if (queues.empty()) return "(all)";
  std::string out;
  for (const std::string& q : queues) out += (out.empty() ? "" : ",") + q;
  return out;
}

boost::json::value OptTime(const std::optional<Instant>& t) {
  return t ? boost::json::value(FormatTime(*t)) : boost::json::value(nullptr);
}

boost::json::object KeyJson(const sdk::ApiKeyInfo& k) {
  boost::json::array queues;
  for (const std::string& q : k.queues) queues.emplace_back(q);
  boost::json::object o{{"id", k.id},
                        {"name", k.name},
                        {"role", k.role},
                        {"queues", std::move(queues)},
                        {"key_prefix", k.key_prefix},
                        {"is_active", k.is_active},
                        {"created_at", OptTime(k.created_at)},
                        {"last_used", OptTime(k.last_used)},
                        {"expires_at", OptTime(k.expires_at)}};
  if (k.secret) o["key"] = *k.secret;
  return o;
}

int RunList(CliContext& ctx) {
  auto keys = ctx.client().ListApiKeys();
  if (!keys.ok()) return ReportError(keys.status());
  if (ctx.flags.json) {
    boost::json::array out;
    for (const sdk::ApiKeyInfo& k : *keys) out.push_back(KeyJson(k));
    PrintJson(out);
    return kExitOk;
  }
  if (keys->empty()) {
    std::cout << "no stored API keys (bootstrap keys from --api-key are not listed)\n";
    return kExitOk;
  }
  const Instant now = SystemClock().Now();
  Table table({"ID", "NAME", "ROLE", "QUEUES", "PREFIX", "STATE", "LAST USED", "EXPIRES"});
  for (const sdk::ApiKeyInfo& k : *keys) {
    table.AddRow({k.id, k.name, k.role, QueuesCell(k.queues), k.key_prefix,
                  k.is_active ? "active" : "revoked", TimeCell(k.last_used, now),
                  TimeCell(k.expires_at, now)});
  }
  table.Print(std::cout);
  return kExitOk;
}

int RunCreate(CliContext& ctx, const CreateFlags& f) {
  sdk::CreateApiKeyRequest request;
  request.name = f.name;
  if (!f.role.empty()) request.role = f.role;
  request.queues = f.queues;
  if (!f.expires_in.empty()) {
    std::optional<std::chrono::milliseconds> d = ParseDuration(f.expires_in);
    request.expires_at = SystemClock().Now() + std::chrono::duration_cast<Micros>(*d);
  }
  auto key = ctx.client().CreateApiKey(request);
  if (!key.ok()) return ReportError(key.status());
  if (ctx.flags.json) {
    PrintJson(KeyJson(*key));
    return kExitOk;
  }
  std::cout << "created " << key->role << " key " << key->name << " (" << key->id << ")\n"
            << "secret (shown once; the server keeps only its hash):\n"
            << "  " << key->secret.value_or("") << "\n";
  return kExitOk;
}

int RunRevoke(CliContext& ctx, const std::string& id) {
  Status st = ctx.client().RevokeApiKey(id);
  if (!st.ok()) return ReportError(st);
  if (ctx.flags.json) {
    PrintJson(boost::json::object{{"id", id}, {"revoked", true}});
  } else {
    std::cout << "revoked key " << id << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddKeysCommand(CLI::App& app, CliContext& ctx) {
  auto* keys = app.add_subcommand("keys", "API keys kept by the server: list, create, revoke");
  keys->require_subcommand(1);

  auto* list = keys->add_subcommand("list", "List the stored API keys (never their secrets)");
  ctx.OnRun(list, [&ctx] { return RunList(ctx); });

  auto flags = std::make_shared<CreateFlags>();
  auto* create = keys->add_subcommand("create", "Create a key and print its secret once");
  create->add_option("name", flags->name, "Who the key is for (shown in logs and the audit log)")
      ->required();
  create
      ->add_option("--role", flags->role,
                   "admin, worker or viewer (default: admin; worker "
                   "when --queue is given)")
      ->check(CLI::IsMember({"admin", "worker", "viewer"}));
  create->add_option("--queue", flags->queues, "Limit a worker key to this queue (repeatable)");
  create->add_option("--expires-in", flags->expires_in, "Expire after this long (30d, 12h)")
      ->check(CheckDuration);
  create->footer(
      "Examples:\n  redrive keys create ci-deploys --role viewer\n"
      "  redrive keys create mailer --queue emails --expires-in 90d");
  ctx.OnRun(create, [&ctx, flags] { return RunCreate(ctx, *flags); });

  auto id = std::make_shared<std::string>();
  auto* revoke = keys->add_subcommand("revoke", "Revoke a key: refused from now on");
  revoke->add_option("id", *id, "The key's id (redrive keys list)")->required();
  ctx.OnRun(revoke, [&ctx, id] { return RunRevoke(ctx, *id); });
}

}  // namespace redrive::cli
