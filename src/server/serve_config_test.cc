#include "server/serve_config.h"

#include <gtest/gtest.h>

#include <thread>

namespace redrive::server {
namespace {

TEST(ParseListenTest, AcceptsHostPortAndBracketedV6) {
  auto a = ParseListen("127.0.0.1:7070");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 7070);
  auto b = ParseListen("[::1]:0");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 0);
  auto c = ParseListen("localhost:80");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "localhost");
}

TEST(ParseListenTest, RejectsMalformed) {
  for (const char* bad : {"", "7070", ":7070", "host:", "host:x", "host:65536", "::1:80", "[::1]",
                          "[::1]7070", "host:-1"}) {
    auto r = ParseListen(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("--listen"), std::string::npos);
    }
  }
}

TEST(FormatHostPortTest, BracketsV6) {
  EXPECT_EQ(FormatHostPort("127.0.0.1", 80), "127.0.0.1:80");
  EXPECT_EQ(FormatHostPort("::1", 80), "[::1]:80");
}

TEST(IsLoopbackHostTest, OnlyLoopback) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("127.evil.com"));
  EXPECT_FALSE(IsLoopbackHost("example.com"));
}

TEST(RedactedStoreUrlTest, HidesPasswordsOnly) {
  using K = StoreUrl::Kind;
  EXPECT_EQ(RedactedStoreUrl({K::kSqlite, "./d/r.db"}), "sqlite:./d/r.db");
  EXPECT_EQ(RedactedStoreUrl({K::kPostgres, "postgres://app:hunter2@db:5432/jobs"}),
            "postgres://app:***@db:5432/jobs");
  EXPECT_EQ(RedactedStoreUrl({K::kPostgres, "postgresql://app@h1:5432,h2:5432/jobs"}),
            "postgresql://app@h1:5432,h2:5432/jobs");
  EXPECT_EQ(RedactedStoreUrl({K::kPostgres, "postgres://db/jobs?sslmode=require&password=p@ss"}),
            "postgres://db/jobs?sslmode=require&password=***");
  EXPECT_EQ(RedactedStoreUrl({K::kPostgres, "postgres://u:p@ss@db/jobs?password=x&a=b"}),
            "postgres://u:***@db/jobs?password=***&a=b");
  EXPECT_EQ(RedactedStoreUrl({K::kPostgres, "postgres://db/jobs"}), "postgres://db/jobs");
}

TEST(ParseStoreUrlTest, SqliteAndPostgres) {
  auto s = ParseStoreUrl("sqlite:./data/r.db");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, StoreUrl::Kind::kSqlite);
  EXPECT_EQ(s->location, "./data/r.db");
  auto abs = ParseStoreUrl("sqlite:///tmp/r.db");
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ(abs->location, "/tmp/r.db");
  for (const char* url : {"postgres://u@h/db", "postgresql://h/db"}) {
    auto p = ParseStoreUrl(url);
    ASSERT_TRUE(p.ok()) << url;
    EXPECT_EQ(p->kind, StoreUrl::Kind::kPostgres);
    EXPECT_EQ(p->location, url);
  }
  EXPECT_FALSE(ParseStoreUrl("sqlite:").ok());
  EXPECT_FALSE(ParseStoreUrl("mysql://h/db").ok());
  EXPECT_FALSE(ParseStoreUrl("./r.db").ok());
}

TEST(ParseApiKeyTest, RolesAndKeys) {
  auto a = ParseApiKey("admin:s3cret:with:colons");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->role, api::Role::kAdmin);
  EXPECT_EQ(a->key, "s3cret:with:colons");
  EXPECT_EQ(ParseApiKey("worker:k")->role, api::Role::kWorker);
  EXPECT_EQ(ParseApiKey("viewer:k")->role, api::Role::kViewer);
  EXPECT_FALSE(ParseApiKey("root:k").ok());
  EXPECT_FALSE(ParseApiKey("admin:").ok());
  EXPECT_FALSE(ParseApiKey("admin").ok());
}

TEST(ParseApiKeyTest, NamedKeys) {
  auto a = ParseApiKey("admin@oncall-key:s3cret:with:colons");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->role, api::Role::kAdmin);
  EXPECT_EQ(a->name, "oncall-key");
  EXPECT_EQ(a->key, "s3cret:with:colons");
  // Unnamed keys read as before, whatever their key holds.
  auto b = ParseApiKey("viewer:x@y:z");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->name, "");
  EXPECT_EQ(b->key, "x@y:z");
  for (const char* bad : {"admin@:k", "admin@bad name:k", "admin@a/b:k", "root@ops:k"}) {
    EXPECT_FALSE(ParseApiKey(bad).ok()) << bad;
  }
  EXPECT_FALSE(ParseApiKey(("admin@" + std::string(65, 'n') + ":k").c_str()).ok());
}

TEST(ParseApiKeyTest, TwoKeysMayNotShareAName) {
  ServeFlags flags;
  flags.api_keys = {"admin@ops:key-one", "viewer@ops:key-two"};
  auto config = MakeServeConfig(flags);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().field(), "api_key");
  flags.api_keys = {"admin@ops:key-one", "viewer@watch:key-two", "worker:key-three"};
  EXPECT_TRUE(MakeServeConfig(flags).ok());
}

TEST(ParseApiKeyTest, ErrorNeverEchoesTheKey) {
  auto r = ParseApiKey("superuser:topsecret");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("topsecret"), std::string::npos);
}

TEST(ParseApiKeyListTest, CommaSeparatedSkippingEmpty) {
  auto keys = ParseApiKeyList(" admin:a, worker:w,,viewer:v ");
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 3u);
  EXPECT_EQ((*keys)[1].key, "w");
  EXPECT_TRUE(ParseApiKeyList("")->empty());
  EXPECT_FALSE(ParseApiKeyList("admin:a,bogus").ok());
}

TEST(ParseDurationSecondsTest, Units) {
  EXPECT_EQ(*ParseDurationSeconds("90"), std::chrono::seconds(90));
  EXPECT_EQ(*ParseDurationSeconds("90s"), std::chrono::seconds(90));
  EXPECT_EQ(*ParseDurationSeconds("5m"), std::chrono::seconds(300));
  EXPECT_EQ(*ParseDurationSeconds("2h"), std::chrono::seconds(7200));
  // The CLI's forms too (one grammar): days, and milliseconds in whole seconds.
  EXPECT_EQ(*ParseDurationSeconds("5d"), std::chrono::seconds(432'000));
  EXPECT_EQ(*ParseDurationSeconds("60000ms"), std::chrono::seconds(60));
  for (const char* bad : {"", "0", "-5", "5w", "m", "1.5h", "99999999h", "1500ms", "0ms", "366d"}) {
    EXPECT_FALSE(ParseDurationSeconds(bad).ok()) << bad;
  }
}

TEST(MakeServeConfigTest, DefaultsAreValid) {
  auto c = MakeServeConfig(ServeFlags{});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->listen.host, "127.0.0.1");
  EXPECT_EQ(c->listen.port, 7070);
  EXPECT_EQ(c->store.kind, StoreUrl::Kind::kSqlite);
  EXPECT_EQ(c->store.location, "./redrive-data/redrive.db");
  EXPECT_TRUE(c->api_keys.empty());
  EXPECT_EQ(c->limits.max_body_bytes, 16u << 20);
  EXPECT_EQ(c->limits.max_payload_bytes, 1u << 20);
  EXPECT_EQ(c->limits.max_tags, 32u);
  EXPECT_EQ(c->limits.max_tag_key_bytes, 64u);
  EXPECT_EQ(c->limits.max_tag_value_bytes, 256u);
  EXPECT_EQ(c->limits.max_tags_bytes, 4096u);
  EXPECT_EQ(c->limits.max_worker_metadata_bytes, 16u << 10);
  EXPECT_EQ(c->limits.max_webhooks, 100u);
  EXPECT_EQ(c->retention_interval, std::chrono::seconds(60));
  EXPECT_EQ(c->prune_workers_after, std::chrono::hours(7 * 24));
  EXPECT_EQ(c->io_threads, 1);
  EXPECT_EQ(c->webhook_concurrency, 4);
  EXPECT_EQ(c->webhook_timeout, std::chrono::seconds(10));
  EXPECT_EQ(c->webhook_retry_base, std::chrono::milliseconds(5000));
  EXPECT_FALSE(c->skip_integrity_check);
  EXPECT_EQ(c->integrity_check_budget, std::chrono::seconds(30));
  EXPECT_TRUE(c->sqlite_pipelined_sync);
  EXPECT_EQ(c->operation_batch, 100);
  EXPECT_EQ(c->operation_yield_share, 25);
  EXPECT_TRUE(c->coalesce_writes);
  EXPECT_FALSE(c->webhook_allow_private_targets);
}

TEST(MakeServeConfigTest, NoCoalesceWritesTurnsCoalescingOff) {
  ServeFlags f;
  f.no_coalesce_writes = true;
  EXPECT_FALSE(MakeServeConfig(f)->coalesce_writes);
}

TEST(MakeServeConfigTest, WebhookAllowPrivateTargetsIsPassedOn) {
  ServeFlags f;
  f.webhook_allow_private_targets = true;
  EXPECT_TRUE(MakeServeConfig(f)->webhook_allow_private_targets);
}

TEST(MakeServeConfigTest, AuditRetentionTakesAPositiveDuration) {
  EXPECT_EQ(MakeServeConfig(ServeFlags{})->audit_retention, std::chrono::hours(90 * 24));
  ServeFlags f;
  f.audit_retention = "30d";
  EXPECT_EQ(MakeServeConfig(f)->audit_retention, std::chrono::hours(30 * 24));
  for (const char* bad : {"0", "forever", "400d"}) {
    f.audit_retention = bad;
    auto c = MakeServeConfig(f);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().field(), "audit_retention");
  }
}

TEST(MakeServeConfigTest, OperationRetentionTakesAPositiveDuration) {
  EXPECT_EQ(MakeServeConfig(ServeFlags{})->operation_retention, std::chrono::hours(7 * 24));
  ServeFlags f;
  f.operation_retention = "12h";
  EXPECT_EQ(MakeServeConfig(f)->operation_retention, std::chrono::hours(12));
  for (const char* bad : {"0", "soon", "400d"}) {
    f.operation_retention = bad;
    auto c = MakeServeConfig(f);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().field(), "operation_retention");
  }
}

TEST(MakeServeConfigTest, TokenLifetimesAreBounded) {
  auto defaults = MakeServeConfig(ServeFlags{});
  EXPECT_EQ(defaults->access_token_ttl, std::chrono::minutes(15));
  EXPECT_EQ(defaults->refresh_token_ttl, std::chrono::hours(24));
  ServeFlags f;
  f.access_token_ttl = "1h";
  f.refresh_token_ttl = "30d";
  EXPECT_EQ(MakeServeConfig(f)->access_token_ttl, std::chrono::hours(1));
  EXPECT_EQ(MakeServeConfig(f)->refresh_token_ttl, std::chrono::hours(30 * 24));
  for (const char* bad : {"59s", "25h", "soon"}) {
    ServeFlags g;
    g.access_token_ttl = bad;
    auto c = MakeServeConfig(g);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().field(), "access_token_ttl");
  }
  for (const char* bad : {"9m", "91d"}) {
    ServeFlags g;
    g.refresh_token_ttl = bad;
    auto c = MakeServeConfig(g);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().field(), "refresh_token_ttl");
  }
}

TEST(MakeServeConfigTest, PruneWorkersAfterTakesADurationOrZero) {
  ServeFlags f;
  f.prune_workers_after = "12h";
  EXPECT_EQ(MakeServeConfig(f)->prune_workers_after, std::chrono::hours(12));
  f.prune_workers_after = "0";
  EXPECT_EQ(MakeServeConfig(f)->prune_workers_after, std::chrono::seconds::zero());
}

TEST(MakeServeConfigTest, MaxClockSkewTakesADurationOrZero) {
  ServeFlags f;
  EXPECT_EQ(MakeServeConfig(f)->max_clock_skew, std::chrono::seconds(2));
  f.max_clock_skew = "10s";
  EXPECT_EQ(MakeServeConfig(f)->max_clock_skew, std::chrono::seconds(10));
  f.max_clock_skew = "0";
  EXPECT_EQ(MakeServeConfig(f)->max_clock_skew, std::chrono::seconds::zero());
  f.max_clock_skew = "soon";
  auto bad = MakeServeConfig(f);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "max_clock_skew");
  EXPECT_NE(bad.status().message().find("--max-clock-skew"), std::string::npos);
}

TEST(MakeServeConfigTest, CollectsKeysFromRepeatsAndLists) {
  ServeFlags f;
  f.api_keys = {"admin:a", "worker:w,viewer:v"};
  auto c = MakeServeConfig(f);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->api_keys.size(), 3u);
}

TEST(MakeServeConfigTest, NonLoopbackNeedsKeysOrInsecureFlag) {
  ServeFlags f;
  f.listen = "0.0.0.0:7070";
  auto refused = MakeServeConfig(f);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--insecure-no-auth"), std::string::npos);
  EXPECT_EQ(refused.status().message().find('\n'), std::string::npos);  // one line

  f.insecure_no_auth = true;
  EXPECT_TRUE(MakeServeConfig(f).ok());

  f.insecure_no_auth = false;
  f.api_keys = {"admin:0123456789abcdef"};
  EXPECT_TRUE(MakeServeConfig(f).ok());
}

TEST(MakeServeConfigTest, NonLoopbackRefusesShortKeys) {
  ServeFlags f;
  f.listen = "0.0.0.0:7070";
  f.api_keys = {"admin:0123456789abcdef,viewer:k"};
  auto refused = MakeServeConfig(f);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("viewer key has 1 characters"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("at least 16"), std::string::npos);

  f.api_keys = {"viewer:0123456789abcde"};  // 15
  EXPECT_FALSE(MakeServeConfig(f).ok());
  f.api_keys = {"viewer:0123456789abcdef"};  // 16
  EXPECT_TRUE(MakeServeConfig(f).ok());

  f.listen = "127.0.0.1:7070";  // loopback: short keys are fine
  f.api_keys = {"viewer:k"};
  EXPECT_TRUE(MakeServeConfig(f).ok());
}

TEST(MakeServeConfigTest, RejectsBadTunables) {
  auto fails = [](auto mutate) {
    ServeFlags f;
    mutate(f);
    return !MakeServeConfig(f).ok();
  };
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_body_bytes = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_payload_bytes = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_payload_bytes = f.max_body_bytes + 1; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_tags = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_tag_key_bytes = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_tag_value_bytes = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_tags_bytes = 0; }));
  // A small body limit needs no smaller tag limit: the body limit applies first.
  EXPECT_FALSE(fails([](ServeFlags& f) {
    f.max_body_bytes = 2048;
    f.max_payload_bytes = 1024;
  }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_worker_metadata_bytes = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.max_webhooks = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.retention_interval = "soon"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.prune_workers_after = "never"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.prune_workers_after = "-1"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.io_threads = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.log_level = "verbose"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.store = "redis://x"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.webhook_concurrency = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.webhook_timeout = "10m"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.webhook_retry_base_ms = 0; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.log_level = "debug"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.log_format = "JSON"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.log_format = "logfmt"; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.log_format = "json"; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.webhook_retry_base_ms = 20; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.db_pool_size = -1; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.db_pool_size = 257; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.node_id = "has space"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.node_id = "-dash-first"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.node_id = std::string(101, 'n'); }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.node_id = "web-1.eu_west"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.integrity_check_budget = "0"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.integrity_check_budget = "soon"; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.integrity_check_budget = "5m"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.sqlite_sync = "normal"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.sqlite_sync = "FULL"; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.sqlite_sync = "full"; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.operation_batch = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.operation_batch = 501; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.operation_batch = 25; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.operation_yield_share = 0; }));
  EXPECT_TRUE(fails([](ServeFlags& f) { f.operation_yield_share = 101; }));
  EXPECT_FALSE(fails([](ServeFlags& f) { f.operation_yield_share = 100; }));
}

TEST(MakeServeConfigTest, NodeIdAndPoolSizePassThrough) {
  ServeFlags f;
  EXPECT_EQ(MakeServeConfig(f)->node_id, "");  // the engine's default
  EXPECT_EQ(MakeServeConfig(f)->db_pool_size,
            DefaultDbPoolSize(std::thread::hardware_concurrency()));
  f.node_id = "web-1";
  f.db_pool_size = 4;
  auto c = MakeServeConfig(f);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->node_id, "web-1");
  EXPECT_EQ(c->db_pool_size, 4);
}

TEST(MakeServeConfigTest, TheDefaultPoolIsTheCoresWithinBounds) {
  EXPECT_EQ(DefaultDbPoolSize(0), 2);  // unknown
  EXPECT_EQ(DefaultDbPoolSize(1), 2);
  EXPECT_EQ(DefaultDbPoolSize(2), 2);
  EXPECT_EQ(DefaultDbPoolSize(3), 3);
  EXPECT_EQ(DefaultDbPoolSize(8), 8);
  EXPECT_EQ(DefaultDbPoolSize(32), 32);
  EXPECT_EQ(DefaultDbPoolSize(64), 32);
}

// The default pool is the database's, divided among the nodes; a pool given
// is this node's alone.
TEST(MakeServeConfigTest, OnlyTheDefaultPoolIsShared) {
  ServeFlags flags;
  auto defaults = MakeServeConfig(flags);
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->share_db_pool);
  EXPECT_EQ(defaults->db_pool_size, DefaultDbPoolSize(std::thread::hardware_concurrency()));
  flags.db_pool_size = 3;
  auto given = MakeServeConfig(flags);
  ASSERT_TRUE(given.ok());
  EXPECT_FALSE(given->share_db_pool);
  EXPECT_EQ(given->db_pool_size, 3);
}

TEST(MakeServeConfigTest, FrontDoorFlags) {
  ServeFlags flags;
  auto defaults = MakeServeConfig(flags);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->max_connections, 1024u);
  EXPECT_EQ(defaults->max_buffered_body_bytes, size_t{128} << 20);
  EXPECT_TRUE(defaults->allowed_hosts.empty());
  EXPECT_EQ(defaults->auth_failure_limit, 10);
  EXPECT_EQ(defaults->auth_failure_window, std::chrono::seconds(60));

  flags.allowed_hosts = {"Queue.Example.com", "a.internal, b.internal."};
  flags.max_connections = 10;
  flags.auth_failure_limit = 0;
  flags.auth_failure_window = "5m";
  auto set = MakeServeConfig(flags);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->allowed_hosts,
            (std::vector<std::string>{"queue.example.com", "a.internal", "b.internal"}));
  EXPECT_EQ(set->max_connections, 10u);
  EXPECT_EQ(set->auth_failure_limit, 0);
  EXPECT_EQ(set->auth_failure_window, std::chrono::minutes(5));
}

TEST(MakeServeConfigTest, RejectsBadFrontDoorFlags) {
  auto message = [](auto change) {
    ServeFlags flags;
    change(flags);
    auto config = MakeServeConfig(flags);
    return config.ok() ? std::string("ok") : config.status().message();
  };
  EXPECT_NE(message([](ServeFlags& f) { f.max_connections = 0; }).find("--max-connections"),
            std::string::npos);
  EXPECT_NE(message([](ServeFlags& f) {
              f.max_buffered_body_bytes = f.max_body_bytes - 1;
            }).find("--max-buffered-body-bytes"),
            std::string::npos);
  for (const char* bad : {"http://x.example", "x.example:80", "x/y", "a b"}) {
    EXPECT_NE(message([&](ServeFlags& f) { f.allowed_hosts = {bad}; }).find("--allowed-host"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(message([](ServeFlags& f) { f.auth_failure_limit = -1; }).find("--auth-failure-limit"),
            std::string::npos);
  EXPECT_NE(
      message([](ServeFlags& f) { f.auth_failure_window = "2d"; }).find("--auth-failure-window"),
      std::string::npos);
}

}  // namespace
}  // namespace redrive::server
