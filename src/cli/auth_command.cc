// `redrive auth whoami|token|refresh|validate|logout`: the token exchange
// (/api/v1/auth). `token` trades the --api-key for a short-lived access
// token and prints it alone on stdout, so a script can say
// TOKEN=$(redrive auth token); --json prints the pair with its refresh token.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "core/time_format.h"

namespace redrive::cli {
namespace {

boost::json::value OptTime(const std::optional<Instant>& t) {
  return t ? boost::json::value(FormatTime(*t)) : boost::json::value(nullptr);
}

std::string QueuesText(const std::vector<std::string>& queues) {
  if (queues.empty()) return "every queue";
  std::string out;
  for (const std::string& q : queues) out += (out.empty() ? "" : ", ") + q;
  return out;
}

int PrintPair(CliContext& ctx, const sdk::TokenPair& pair) {
  if (ctx.flags.json) {
    PrintJson(boost::json::object{{"access_token", pair.access_token},
                                  {"refresh_token", pair.refresh_token},
                                  {"token_type", pair.token_type},
                                  {"expires_in", pair.expires_in.count()},
                                  {"refresh_expires_in", pair.refresh_expires_in.count()}});
  } else {
    std::cout << pair.access_token << "\n";
  }
  return kExitOk;
}

int RunWhoami(CliContext& ctx) {
  auto me = ctx.client().Me();
  if (!me.ok()) return ReportError(me.status());
  if (ctx.flags.json) {
    boost::json::array queues;
    for (const std::string& q : me->queues) queues.emplace_back(q);
    PrintJson(boost::json::object{{"api_key_id", me->api_key_id},
                                  {"name", me->name},
                                  {"role", me->role},
                                  {"credential", me->credential},
                                  {"queues", std::move(queues)},
                                  {"issued_at", OptTime(me->issued_at)},
                                  {"expires_at", OptTime(me->expires_at)}});
    return kExitOk;
  }
  if (me->credential == "none") {
    std::cout << "no credential needed: this server has no API keys (every caller is " << me->role
              << ")\n";
    return kExitOk;
  }
  std::cout << me->role << " key " << (me->name.empty() ? me->api_key_id : me->name) << " ("
            << me->api_key_id << "), " << QueuesText(me->queues) << ", by "
            << (me->credential == "access_token" ? "access token" : "API key");
  if (me->expires_at) std::cout << " expiring " << FormatTime(*me->expires_at);
  std::cout << "\n";
  return kExitOk;
}

int RunToken(CliContext& ctx) {
  if (ctx.flags.api_key.empty()) {
    std::cerr << "redrive: auth token needs an API key to log in with (--api-key or "
                 "REDRIVE_API_KEY)\n";
    return kExitUsage;
  }
  auto pair = ctx.client().Login(ctx.flags.api_key);
  if (!pair.ok()) return ReportError(pair.status());
  return PrintPair(ctx, *pair);
}

int RunRefresh(CliContext& ctx, const std::string& refresh_token) {
  auto pair = ctx.client().RefreshTokens(refresh_token);
  if (!pair.ok()) return ReportError(pair.status());
  return PrintPair(ctx, *pair);
}

int RunValidate(CliContext& ctx, const std::string& token) {
  auto v = ctx.client().ValidateToken(token);
  if (!v.ok()) return ReportError(v.status());
  if (ctx.flags.json) {
    boost::json::object out{{"valid", v->valid}};
    if (v->valid) out["claims"] = v->claims;
    if (v->error) out["message"] = *v->error;
    PrintJson(out);
  } else if (v->valid) {
    const boost::json::value* role = v->claims.if_contains("role");
    const boost::json::value* key = v->claims.if_contains("api_key_id");
    std::cout << "valid: " << (role && role->is_string() ? role->get_string().c_str() : "?")
              << " token of key " << (key && key->is_string() ? key->get_string().c_str() : "?")
              << "\n";
  } else {
    std::cout << "not valid: " << v->error.value_or("(no reason given)") << "\n";
  }
  return v->valid ? kExitOk : kExitRefused;
}

int RunLogout(CliContext& ctx, const std::string& refresh_token) {
  std::optional<std::string> one;
  if (!refresh_token.empty()) one = refresh_token;
  Status st = ctx.client().Logout(one);
  if (!st.ok()) return ReportError(st);
  if (ctx.flags.json) {
    PrintJson(
        boost::json::object{{"logged_out", one ? "one refresh token" : "every refresh token"}});
  } else {
    std::cout << (one ? "refresh token ended\n" : "every refresh token of this key ended\n");
  }
  return kExitOk;
}

}  // namespace

void AddAuthCommand(CLI::App& app, CliContext& ctx) {
  auto* auth = app.add_subcommand(
      "auth", "Who am I, and access tokens: whoami, token, refresh, validate, logout");
  auth->require_subcommand(1);

  auto* whoami = auth->add_subcommand("whoami", "Show the key or token the CLI authenticates with");
  ctx.OnRun(whoami, [&ctx] { return RunWhoami(ctx); });

  auto* token = auth->add_subcommand(
      "token",
      "Trade the API key for an access token and print it (--json: with its refresh token)");
  token->footer(
      "Example:\n  TOKEN=$(redrive auth token)\n"
      "  curl -H \"Authorization: Bearer $TOKEN\" http://127.0.0.1:7070/api/v1/queues");
  ctx.OnRun(token, [&ctx] { return RunToken(ctx); });

  auto refresh_token = std::make_shared<std::string>();
  auto* refresh = auth->add_subcommand(
      "refresh", "Trade a refresh token for a new access token (prints it; --json both tokens)");
  refresh->add_option("refresh_token", *refresh_token, "rdr_... from auth token --json")
      ->required();
  ctx.OnRun(refresh, [&ctx, refresh_token] { return RunRefresh(ctx, *refresh_token); });

  auto access_token = std::make_shared<std::string>();
  auto* validate =
      auth->add_subcommand("validate", "Check an access token (exit 1 when it is not valid)");
  validate->add_option("token", *access_token, "The access token")->required();
  ctx.OnRun(validate, [&ctx, access_token] { return RunValidate(ctx, *access_token); });

  auto logout_token = std::make_shared<std::string>();
  auto* logout = auth->add_subcommand(
      "logout", "End a refresh token, or without one every refresh token of this key");
  logout->add_option("refresh_token", *logout_token, "The refresh token to end");
  ctx.OnRun(logout, [&ctx, logout_token] { return RunLogout(ctx, *logout_token); });
}

}  // namespace redrive::cli
