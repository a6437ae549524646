// The configurable bounds on what a request may make the server keep and hand
// out again: tags (count, key, value, total) and worker metadata. Each is
// accepted at the limit and refused one past it, naming the field.
#include <string>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

// {"k0":"v",...} with `count` tags.
std::string TagsJson(size_t count) {
  std::string out = "{";
  for (size_t i = 0; i < count; ++i) {
    out += std::string(i ? "," : "") + "\"k" + std::to_string(i) + "\":\"v\"";
  }
  return out + "}";
}

class ApiLimitsTest : public ApiTest {
 protected:
  Reply WithTags(const std::string& tags) {
    return Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"tags":)" + tags + "}");
  }
  void ExpectRefused(const Reply& r, const std::string& field) {
    EXPECT_EQ(r.status, 400) << r.raw.body;
    EXPECT_EQ(r.Code(), "VALIDATION_ERROR") << r.raw.body;
    EXPECT_EQ(r.Field(), field) << r.raw.body;
  }
};

TEST_F(ApiLimitsTest, TagCountDefaultsTo32) {
  EXPECT_EQ(WithTags(TagsJson(32)).status, 201);
  ExpectRefused(WithTags(TagsJson(33)), "tags");
}

TEST_F(ApiLimitsTest, TagKeyLengthDefaultsTo64Bytes) {
  EXPECT_EQ(WithTags(R"({")" + std::string(64, 'k') + R"(":"v"})").status, 201);
  Reply r = WithTags(R"({")" + std::string(65, 'k') + R"(":"v"})");
  ExpectRefused(r, "tags");
  // The oversized key is not echoed back.
  EXPECT_EQ(r.raw.body.find(std::string(65, 'k')), std::string::npos);
}

TEST_F(ApiLimitsTest, TagValueLengthDefaultsTo256Bytes) {
  EXPECT_EQ(WithTags(R"({"k":")" + std::string(256, 'v') + R"("})").status, 201);
  ExpectRefused(WithTags(R"({"k":")" + std::string(257, 'v') + R"("})"), "tags.k");
}

TEST_F(ApiLimitsTest, TagsTotalDefaultsTo4KiB) {
  // 16 tags of 240-byte values, and a last one padded to `total` bytes.
  auto tags = [](size_t total) {
    std::string out = "{";
    for (int i = 10; i < 26; ++i) {
      out += "\"k" + std::to_string(i) + "\":\"" + std::string(240, 'v') + "\",";
    }
    out += R"("k99":")";
    out += std::string(total - out.size() - 2, 'v') + "\"}";
    EXPECT_EQ(out.size(), total);
    return out;
  };
  EXPECT_EQ(WithTags(tags(4096)).status, 201);
  ExpectRefused(WithTags(tags(4097)), "tags");
}

TEST_F(ApiLimitsTest, TagLimitsAreConfigurable) {
  ApiOptions options;
  options.limits.max_tags = 2;
  options.limits.max_tag_key_bytes = 3;
  options.limits.max_tag_value_bytes = 4;
  options.limits.max_tags_bytes = 20;
  Reconfigure(options);
  EXPECT_EQ(WithTags(R"({"ab":"1234","d":""})").status, 201);   // 20 bytes
  ExpectRefused(WithTags(R"({"ab":"1234","d":"1"})"), "tags");  // 21 bytes
  ExpectRefused(WithTags(R"({"a":"1","b":"2","c":"3"})"), "tags");
  ExpectRefused(WithTags(R"({"abcd":"1"})"), "tags");
  ExpectRefused(WithTags(R"({"a":"12345"})"), "tags.a");
}

TEST_F(ApiLimitsTest, BulkRefusesTheItemNamingItsIndex) {
  Reply r = Post("/api/v1/jobs/bulk", R"({"queue_name":"q","jobs":[{"payload":{},"tags":)" +
                                          TagsJson(32) + R"(},{"payload":{},"tags":)" +
                                          TagsJson(33) + "}]}");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["success_count"], 1);
  const auto& failed = r["failed"].as_array();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].at("index"), 1);
  EXPECT_EQ(failed[0].at("code"), "VALIDATION_ERROR");
  EXPECT_EQ(failed[0].at("details").at("field"), "jobs[1].tags");
}

TEST_F(ApiLimitsTest, WorkerMetadataIsBounded) {
  ApiOptions options;
  options.limits.max_worker_metadata_bytes = 20;
  Reconfigure(options);
  // {"m":"<n x>"} is 8 + n bytes: 12 x make 20, 13 make 21.
  auto metadata = [](size_t n) { return R"({"m":")" + std::string(n, 'x') + "\"}"; };
  Reply ok = Post("/api/v1/workers/register",
                  R"({"queue_name":"q","hostname":"h","metadata":)" + metadata(12) + "}");
  ASSERT_EQ(ok.status, 201) << ok.raw.body;
  Reply big = Post("/api/v1/workers/register",
                   R"({"queue_name":"q","hostname":"h","metadata":)" + metadata(13) + "}");
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.Code(), "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(big.Field(), "metadata");
  std::string id = Str(ok["id"]);
  EXPECT_EQ(Post("/api/v1/workers/" + id + "/heartbeat",
                 R"({"current_jobs":0,"metadata":)" + metadata(12) + "}")
                .status,
            200);
  EXPECT_EQ(Post("/api/v1/workers/" + id + "/heartbeat",
                 R"({"current_jobs":0,"metadata":)" + metadata(13) + "}")
                .Field(),
            "metadata");
}

TEST_F(ApiLimitsTest, ListWorkersPages) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    Reply r = Post("/api/v1/workers/register", R"({"queue_name":"q","hostname":"h"})");
    ASSERT_EQ(r.status, 201) << r.raw.body;
    ids.push_back(Str(r["id"]));
    clock_.Advance(std::chrono::seconds(1));  // registration order is list order
  }
  auto page = [&](const std::string& query) {
    std::vector<std::string> out;
    Reply r = Get("/api/v1/workers" + query);
    EXPECT_EQ(r.status, 200) << r.raw.body;
    for (const auto& w : r.json.as_array()) out.push_back(Str(w.at("id")));
    return out;
  };
  EXPECT_EQ(page(""), ids);  // still a bare array: default limit 100
  EXPECT_EQ(page("?limit=2"), std::vector<std::string>(ids.begin(), ids.begin() + 2));
  EXPECT_EQ(page("?limit=2&offset=2"), std::vector<std::string>{ids[2]});
  EXPECT_EQ(page("?offset=3"), std::vector<std::string>{});
  EXPECT_EQ(page("?limit=1000").size(), 3u);
  EXPECT_EQ(page("?limit=5000").size(), 3u);  // capped at 1000, not refused
  EXPECT_EQ(page("?limit=0").size(), 1u);     // raised to 1
  for (const char* bad : {"?limit=-1", "?limit=x", "?limit=1.5", "?offset=-1"}) {
    Reply r = Get(std::string("/api/v1/workers") + bad);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(r.Field(), std::string(bad).substr(1, std::string(bad).find('=') - 1)) << bad;
  }
}

// Spooled clamps a list's limit to the route's range instead of refusing it
// (its own test asks for 200 and expects up to 100); so does every list route
// here. Only a negative or non-numeric limit is refused.
TEST_F(ApiTest, ListLimitsAreClampedToTheRouteRange) {
  std::string jobs;
  for (int i = 0; i < 101; ++i) jobs += std::string(i ? "," : "") + R"({"payload":{}})";
  ASSERT_EQ(Post("/api/v1/jobs/bulk", R"({"queue_name":"many","jobs":[)" + jobs + "]}").status,
            200);
  EXPECT_EQ(Get("/api/v1/jobs?limit=200").json.as_array().size(), 100u);
  EXPECT_EQ(Get("/api/v1/jobs?limit=99999999999999999999999").json.as_array().size(), 100u);
  EXPECT_EQ(Get("/api/v1/jobs?limit=0").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs?limit=3").json.as_array().size(), 3u);
  for (const char* route :
       {"/api/v1/jobs", "/api/v1/jobs/dlq", "/api/v1/jobs/dlq/summary", "/api/v1/workers"}) {
    EXPECT_EQ(Get(std::string(route) + "?limit=200").status, 200) << route;
    for (const char* bad : {"-1", "x", "2e2", "+5"}) {
      Reply r = Get(std::string(route) + "?limit=" + bad);
      EXPECT_EQ(r.status, 400) << route << " " << bad;
      EXPECT_EQ(r.Field(), "limit") << route << " " << bad;
    }
  }
}

}  // namespace
}  // namespace redrive::api::testing
