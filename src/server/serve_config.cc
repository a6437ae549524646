#include "server/serve_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <thread>

#include "api/auth.h"
#include "core/duration.h"
#include "core/limits.h"

namespace redrive::server {
namespace {

// Appended, not "'" + ...: GCC 12 at -O3 reports a false -Wrestrict there.
std::string Quoted(std::string_view s) {
  std::string quoted = "'";
  quoted.append(s).append("'");
  return quoted;
}

bool ParsePort(std::string_view text, uint16_t* port) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > 65535) {
    return false;
  }
  *port = static_cast<uint16_t>(value);
  return true;
}

// Dotted-quad whose first octet is 127. Only the shape matters here: the
// server's bind reports anything malformed.
bool IsLoopbackV4(std::string_view host) {
  if (!host.starts_with("127.")) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

}  // namespace

Result<ListenAddress> ParseListen(std::string_view text) {
  auto bad = [&] {
    return Status::Validation("listen", "--listen: expected HOST:PORT, got " + Quoted(text));
  };
  ListenAddress out;
  std::string_view port_text;
  if (text.starts_with('[')) {  // [v6]:port
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad();
    }
    out.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad();
    out.host = std::string(text.substr(0, colon));
    // A bare IPv6 address ("::1:80") is ambiguous; brackets are required.
    if (out.host.find(':') != std::string::npos) return bad();
    port_text = text.substr(colon + 1);
  }
  if (out.host.empty() || !ParsePort(port_text, &out.port)) return bad();
  return out;
}

std::string FormatHostPort(std::string_view host, uint16_t port) {
  std::string h(host);
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  return h + ":" + std::to_string(port);
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || IsLoopbackV4(host);
}

Result<StoreUrl> ParseStoreUrl(std::string_view text) {
  if (text.starts_with("sqlite:")) {
    std::string_view path = text.substr(7);
    // Tolerate the URL-looking form "sqlite://PATH" as well.
    if (path.starts_with("//")) path.remove_prefix(2);
    if (path.empty()) {
      return Status::Validation(
          "store", "--store: sqlite: needs a file path, e.g. sqlite:./redrive-data/redrive.db");
    }
    return StoreUrl{StoreUrl::Kind::kSqlite, std::string(path)};
  }
  if (text.starts_with("postgres://") || text.starts_with("postgresql://")) {
    return StoreUrl{StoreUrl::Kind::kPostgres, std::string(text)};
  }
  return Status::Validation("store",
                            "--store: expected sqlite:PATH or postgres://..., got " + Quoted(text));
}

std::string RedactedStoreUrl(const StoreUrl& store) {
  if (store.kind == StoreUrl::Kind::kSqlite) return "sqlite:" + store.location;
  std::string url = store.location;
  // userinfo: between "://" and the first '@' before any '/', '?' or '#'.
  const size_t start = url.find("://") + 3;
  const size_t end = url.find_first_of("/?#", start);
  const size_t at = url.rfind('@', end == std::string::npos ? url.size() : end);
  if (at != std::string::npos && at >= start) {
    const size_t colon = url.find(':', start);
    if (colon != std::string::npos && colon < at) url.replace(colon + 1, at - colon - 1, "***");
  }
  // password=... among the query parameters.
  for (size_t q = url.find('?'); q != std::string::npos;) {
    const size_t key = q + 1;
    const size_t next = url.find('&', key);
    if (url.compare(key, 9, "password=") == 0) {
      const size_t value = key + 9;
      url.replace(value, (next == std::string::npos ? url.size() : next) - value, "***");
    }
    q = url.find('&', key);
  }
  return url;
}

namespace {

bool IsValidKeyName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<api::ApiKey> ParseApiKey(std::string_view text) {
  size_t colon = text.find(':');
  auto bad = [&](std::string why) {
    // Never echo the key itself: it is a secret and this line goes to logs.
    return Status::Validation("api_key", "--api-key: " + why);
  };
  if (colon == std::string_view::npos) return bad("expected ROLE:KEY or ROLE@NAME:KEY");
  std::string_view role = text.substr(0, colon), key = text.substr(colon + 1);
  api::ApiKey out;
  // The KEY may hold ':' (everything after the first colon is the key), so a
  // name goes with the role: "admin@oncall:KEY". No role contains '@', so
  // every ROLE:KEY accepted before reads the same.
  if (const size_t at = role.find('@'); at != std::string_view::npos) {
    std::string_view name = role.substr(at + 1);
    role = role.substr(0, at);
    if (!IsValidKeyName(name)) {
      return bad("a key name (ROLE@NAME:KEY) is 1 to 64 of a-z A-Z 0-9 . _ -, got " +
                 Quoted(name.substr(0, 100)));
    }
    out.name = std::string(name);
  }
  if (role == "admin") {
    out.role = api::Role::kAdmin;
  } else if (role == "worker") {
    out.role = api::Role::kWorker;
  } else if (role == "viewer") {
    out.role = api::Role::kViewer;
  } else {
    return bad("role must be admin, worker or viewer, got " + Quoted(role));
  }
  if (key.empty()) return bad("empty key for role " + std::string(role));
  out.key = std::string(key);
  return out;
}

Result<std::vector<api::ApiKey>> ParseApiKeyList(std::string_view text) {
  std::vector<api::ApiKey> keys;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      REDRIVE_ASSIGN_OR_RETURN(api::ApiKey key, ParseApiKey(item));
      keys.push_back(std::move(key));
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return keys;
}

Result<std::vector<std::string>> ParseAllowedHosts(std::string_view text) {
  std::vector<std::string> hosts;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      std::string host(item);
      for (char& c : host) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        if (!ok || host.size() > 253) {
          return Status::Validation("allowed_host",
                                    "--allowed-host: expected a host name like queue.example.com "
                                    "(no scheme, port or path), got " +
                                        Quoted(item.substr(0, 100)));
        }
      }
      if (host.ends_with('.')) host.pop_back();
      hosts.push_back(std::move(host));
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return hosts;
}

Result<std::chrono::seconds> ParseDurationSeconds(std::string_view text) {
  auto bad = [&] {
    return Status::Validation("duration",
                              "expected a positive duration in whole seconds like 60, 60s, 5m, 1h "
                              "or 1d, got " +
                                  Quoted(text));
  };
  const std::optional<std::chrono::milliseconds> d = ParseDuration(text);
  if (!d || *d <= std::chrono::milliseconds::zero() || d->count() % 1000 != 0) return bad();
  if (*d > std::chrono::hours(365 * 24)) return bad();  // a year is plenty
  return std::chrono::duration_cast<std::chrono::seconds>(*d);
}

bool IsValidLogLevel(std::string_view level) {
  for (std::string_view name : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
    if (level == name) return true;
  }
  return false;
}

namespace {

// --max-schedules (checked positive with the limits), --schedule-history-keep
// (1..1,000,000), --schedule-history-retention (a duration).
Status ApplyScheduleFlags(const ServeFlags& flags, ServeConfig* config) {
  config->max_schedules = flags.max_schedules;
  if (flags.schedule_history_keep < 1 || flags.schedule_history_keep > 1'000'000) {
    return Status::Validation("schedule_history_keep",
                              "--schedule-history-keep must be 1..1000000");
  }
  config->schedule_history_keep = flags.schedule_history_keep;
  auto keep = ParseDurationSeconds(flags.schedule_history_retention);
  if (!keep.ok()) {
    return Status::Validation("schedule_history_retention",
                              "--schedule-history-retention: " + keep.status().message());
  }
  config->schedule_history_retention = *keep;
  return Status::Ok();
}

// --access-token-ttl (1 min..24 h) and --refresh-token-ttl (10 min..90 days):
// an access token is checked without a store read, so it stays short; a
// refresh token lives in the store and is pruned a day after it ends.
Status ApplyTokenFlags(const ServeFlags& flags, ServeConfig* config) {
  using std::chrono::hours;
  using std::chrono::minutes;
  struct Bound {
    const std::string& text;
    const char* field;
    const char* flag;
    std::chrono::seconds min, max;
    const char* range;
    std::chrono::seconds* out;
  };
  const Bound bounds[] = {{flags.access_token_ttl, "access_token_ttl", "--access-token-ttl",
                           minutes(1), hours(24), "1m..24h", &config->access_token_ttl},
                          {flags.refresh_token_ttl, "refresh_token_ttl", "--refresh-token-ttl",
                           minutes(10), hours(90 * 24), "10m..90d", &config->refresh_token_ttl}};
  for (const Bound& b : bounds) {
    auto ttl = ParseDurationSeconds(b.text);
    if (!ttl.ok()) {
      return Status::Validation(b.field, std::string(b.flag) + ": " + ttl.status().message());
    }
    if (*ttl < b.min || *ttl > b.max) {
      return Status::Validation(
          b.field, std::string(b.flag) + " must be within " + b.range + ", got " + Quoted(b.text));
    }
    *b.out = *ttl;
  }
  return Status::Ok();
}

// --max-event-streams (1..100000), --event-buffer (1..1000000) and
// --event-ping-interval (100ms..10m).
Status ApplyEventFlags(const ServeFlags& flags, ServeConfig* config) {
  if (flags.max_event_streams < 1 || flags.max_event_streams > 100'000) {
    return Status::Validation("max_event_streams", "--max-event-streams must be 1..100000");
  }
  config->max_event_streams = flags.max_event_streams;
  if (flags.event_buffer < 1 || flags.event_buffer > 1'000'000) {
    return Status::Validation("event_buffer", "--event-buffer must be 1..1000000");
  }
  config->event_buffer = flags.event_buffer;
  const std::optional<std::chrono::milliseconds> ping = ParseDuration(flags.event_ping_interval);
  if (!ping || *ping < std::chrono::milliseconds(100) || *ping > std::chrono::minutes(10)) {
    return Status::Validation("event_ping_interval",
                              "--event-ping-interval must be a duration within 100ms..10m, got " +
                                  Quoted(flags.event_ping_interval));
  }
  config->event_ping_interval = *ping;
  return Status::Ok();
}

// Each bound positive. (One larger than --max-body-bytes is harmless: the body
// limit refuses such a request first; so a small body limit needs no other flag.)
Status CheckTagAndMetadataLimits(const ServeFlags& flags) {
  const std::pair<uint64_t, const char*> limits[] = {
      {flags.max_tags, "max_tags"},
      {flags.max_tag_key_bytes, "max_tag_key_bytes"},
      {flags.max_tag_value_bytes, "max_tag_value_bytes"},
      {flags.max_tags_bytes, "max_tags_bytes"},
      {flags.max_worker_metadata_bytes, "max_worker_metadata_bytes"},
      {flags.max_queues, "max_queues"},
      {flags.max_webhooks, "max_webhooks"},
      {flags.max_schedules, "max_schedules"}};
  for (const auto& [value, field] : limits) {
    if (value == 0) {
      std::string flag = "--" + std::string(field);
      std::replace(flag.begin(), flag.end(), '_', '-');
      return Status::Validation(field, flag + " must be positive");
    }
  }
  return Status::Ok();
}

// Connections, buffered bodies, allowed hosts and the auth-failure limit.
Status ApplyFrontDoorFlags(const ServeFlags& flags, ServeConfig* config) {
  if (flags.max_connections < 1 || flags.max_connections > 1'000'000) {
    return Status::Validation("max_connections", "--max-connections must be between 1 and 1000000");
  }
  config->max_connections = flags.max_connections;
  if (flags.max_buffered_body_bytes < flags.max_body_bytes) {
    return Status::Validation("max_buffered_body_bytes",
                              "--max-buffered-body-bytes must be at least --max-body-bytes (" +
                                  std::to_string(flags.max_body_bytes) + ")");
  }
  config->max_buffered_body_bytes = flags.max_buffered_body_bytes;
  for (const std::string& item : flags.allowed_hosts) {
    REDRIVE_ASSIGN_OR_RETURN(std::vector<std::string> hosts, ParseAllowedHosts(item));
    config->allowed_hosts.insert(config->allowed_hosts.end(), hosts.begin(), hosts.end());
  }
  if (flags.auth_failure_limit < 0 || flags.auth_failure_limit > 1'000'000) {
    return Status::Validation("auth_failure_limit",
                              "--auth-failure-limit must be between 0 (no limit) and 1000000");
  }
  config->auth_failure_limit = flags.auth_failure_limit;
  auto window = ParseDurationSeconds(flags.auth_failure_window);
  if (!window.ok() || *window > std::chrono::hours(24)) {
    return Status::Validation("auth_failure_window",
                              "--auth-failure-window: expected a duration from 1s to 24h, got " +
                                  Quoted(flags.auth_failure_window));
  }
  config->auth_failure_window = *window;
  return Status::Ok();
}

// A duration flag where "0" means never (zero).
Result<std::chrono::seconds> DurationOrNever(const std::string& text, const char* field,
                                             const char* flag) {
  if (text == "0") return std::chrono::seconds::zero();
  auto d = ParseDurationSeconds(text);
  if (!d.ok()) {
    return Status::Validation(
        field, std::string(flag) + ": " + d.status().message() + " (or 0 for never)");
  }
  return *d;
}

}  // namespace

int DefaultDbPoolSize(unsigned cores) { return static_cast<int>(std::clamp(cores, 2u, 32u)); }

Result<ServeConfig> MakeServeConfig(const ServeFlags& flags) {
  ServeConfig config;
  REDRIVE_ASSIGN_OR_RETURN(config.listen, ParseListen(flags.listen));
  REDRIVE_ASSIGN_OR_RETURN(config.store, ParseStoreUrl(flags.store));
  for (const std::string& item : flags.api_keys) {
    REDRIVE_ASSIGN_OR_RETURN(std::vector<api::ApiKey> keys, ParseApiKeyList(item));
    config.api_keys.insert(config.api_keys.end(), keys.begin(), keys.end());
  }
  for (size_t i = 0; i < config.api_keys.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const std::string& name = config.api_keys[i].name;
      if (!name.empty() && name == config.api_keys[j].name) {
        return Status::Validation("api_key", "--api-key: two keys are named " + Quoted(name) +
                                                 "; the audit log tells keys apart by name");
      }
    }
  }
  config.insecure_no_auth = flags.insecure_no_auth;
  // Loopback servers (every test, a developer's `make run`) may use short
  // keys; anything reachable from the network may not.
  const bool loopback = IsLoopbackHost(config.listen.host);
  for (const api::ApiKey& key : config.api_keys) {
    if (!loopback && key.key.size() < kMinApiKeyLength) {
      // Never echo the key itself: it is a secret and this line goes to logs.
      return Status::Validation(
          "api_key", "--api-key: a " + std::string(api::RoleName(key.role)) + " key has " +
                         std::to_string(key.key.size()) + " characters; keys need at least " +
                         std::to_string(kMinApiKeyLength) + " on a non-loopback address");
    }
  }
  if (config.api_keys.empty() && !config.insecure_no_auth && !IsLoopbackHost(config.listen.host)) {
    return Status::Validation(
        "listen", "refusing to listen on " +
                      FormatHostPort(config.listen.host, config.listen.port) +
                      " without API keys: pass --api-key ROLE:KEY, or --insecure-no-auth to "
                      "serve everyone");
  }
  if (flags.max_body_bytes == 0) {
    return Status::Validation("max_body_bytes", "--max-body-bytes must be positive");
  }
  if (flags.max_payload_bytes == 0 || flags.max_payload_bytes > flags.max_body_bytes) {
    return Status::Validation("max_payload_bytes",
                              "--max-payload-bytes must be positive and at most --max-body-bytes");
  }
  config.limits.max_body_bytes = flags.max_body_bytes;
  config.limits.max_payload_bytes = flags.max_payload_bytes;
  REDRIVE_RETURN_IF_ERROR(CheckTagAndMetadataLimits(flags));
  config.limits.max_tags = flags.max_tags;
  config.limits.max_tag_key_bytes = flags.max_tag_key_bytes;
  config.limits.max_tag_value_bytes = flags.max_tag_value_bytes;
  config.limits.max_tags_bytes = flags.max_tags_bytes;
  config.limits.max_worker_metadata_bytes = flags.max_worker_metadata_bytes;
  config.limits.max_queues = flags.max_queues;
  config.limits.max_webhooks = flags.max_webhooks;
  REDRIVE_RETURN_IF_ERROR(ApplyFrontDoorFlags(flags, &config));
  auto interval = ParseDurationSeconds(flags.retention_interval);
  if (!interval.ok()) {
    return Status::Validation("retention_interval",
                              "--retention-interval: " + interval.status().message());
  }
  config.retention_interval = *interval;
  auto audit_retention = ParseDurationSeconds(flags.audit_retention);
  if (!audit_retention.ok()) {
    return Status::Validation("audit_retention",
                              "--audit-retention: " + audit_retention.status().message());
  }
  config.audit_retention = *audit_retention;
  auto operation_retention = ParseDurationSeconds(flags.operation_retention);
  if (!operation_retention.ok()) {
    return Status::Validation("operation_retention",
                              "--operation-retention: " + operation_retention.status().message());
  }
  config.operation_retention = *operation_retention;
  REDRIVE_RETURN_IF_ERROR(ApplyScheduleFlags(flags, &config));
  REDRIVE_RETURN_IF_ERROR(ApplyTokenFlags(flags, &config));
  REDRIVE_RETURN_IF_ERROR(ApplyEventFlags(flags, &config));
  REDRIVE_ASSIGN_OR_RETURN(
      config.prune_workers_after,
      DurationOrNever(flags.prune_workers_after, "prune_workers_after", "--prune-workers-after"));
  REDRIVE_ASSIGN_OR_RETURN(
      config.max_clock_skew,
      DurationOrNever(flags.max_clock_skew, "max_clock_skew", "--max-clock-skew"));
  if (flags.io_threads < 1 || flags.io_threads > 64) {
    return Status::Validation("io_threads", "--io-threads must be between 1 and 64");
  }
  config.io_threads = flags.io_threads;
  if (!IsValidLogLevel(flags.log_level)) {
    return Status::Validation(
        "log_level",
        "--log-level: expected trace, debug, info, warn, error, critical or off, got " +
            Quoted(flags.log_level));
  }
  config.log_level = flags.log_level;
  if (flags.log_format != "text" && flags.log_format != "json") {
    return Status::Validation(
        "log_format", "--log-format: expected text or json, got " + Quoted(flags.log_format));
  }
  config.log_json = flags.log_format == "json";
  if (flags.webhook_concurrency < 1 || flags.webhook_concurrency > 64) {
    return Status::Validation("webhook_concurrency",
                              "--webhook-concurrency must be between 1 and 64");
  }
  config.webhook_concurrency = flags.webhook_concurrency;
  if (flags.db_pool_size < 0 || flags.db_pool_size > 256) {
    return Status::Validation("db_pool_size",
                              "--db-pool-size must be between 1 and 256 (0: the default)");
  }
  config.db_pool_size = flags.db_pool_size != 0
                            ? flags.db_pool_size
                            : DefaultDbPoolSize(std::thread::hardware_concurrency());
  config.share_db_pool = flags.db_pool_size == 0;
  if (!flags.node_id.empty() && !IsValidQueueName(flags.node_id)) {
    return Status::Validation("node_id",
                              "--node-id: 1-100 characters of A-Z a-z 0-9 . _ -, not starting "
                              "with . or -; got " +
                                  Quoted(flags.node_id));
  }
  config.node_id = flags.node_id;
  auto timeout = ParseDurationSeconds(flags.webhook_timeout);
  if (!timeout.ok() || *timeout > std::chrono::minutes(5)) {
    return Status::Validation("webhook_timeout",
                              "--webhook-timeout: expected a duration from 1s to 5m, got " +
                                  Quoted(flags.webhook_timeout));
  }
  config.webhook_timeout = *timeout;
  if (flags.webhook_retry_base_ms < 1 || flags.webhook_retry_base_ms > 3'600'000) {
    return Status::Validation("webhook_retry_base_ms",
                              "--webhook-retry-base-ms must be between 1 and 3600000");
  }
  config.webhook_retry_base = std::chrono::milliseconds(flags.webhook_retry_base_ms);
  config.skip_integrity_check = flags.skip_integrity_check;
  auto budget = ParseDurationSeconds(flags.integrity_check_budget);
  if (!budget.ok()) {
    return Status::Validation("integrity_check_budget",
                              "--integrity-check-budget: expected a positive duration (30s, 5m), "
                              "got " +
                                  Quoted(flags.integrity_check_budget));
  }
  config.integrity_check_budget = *budget;
  if (flags.sqlite_sync != "pipelined" && flags.sqlite_sync != "full") {
    return Status::Validation("sqlite_sync", "--sqlite-sync: expected pipelined or full, got " +
                                                 Quoted(flags.sqlite_sync));
  }
  config.sqlite_pipelined_sync = flags.sqlite_sync == "pipelined";
  if (flags.operation_batch < 1 || flags.operation_batch > 500) {
    return Status::Validation("operation_batch", "--operation-batch must be between 1 and 500");
  }
  config.operation_batch = flags.operation_batch;
  if (flags.operation_yield_share < 1 || flags.operation_yield_share > 100) {
    return Status::Validation("operation_yield_share",
                              "--operation-yield-share must be between 1 and 100");
  }
  config.operation_yield_share = flags.operation_yield_share;
  config.coalesce_writes = !flags.no_coalesce_writes;
  config.webhook_allow_private_targets = flags.webhook_allow_private_targets;
  config.single_use_refresh_tokens = flags.single_use_refresh_tokens;
  return config;
}

}  // namespace redrive::server
