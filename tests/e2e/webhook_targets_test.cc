// Webhook targets end to end, on a server with the default rules (no
// --webhook-allow-private-targets): a URL whose host is a literal loopback
// address is refused when written, and a delivery whose target resolves to
// one is refused when sent — the receiver on loopback never hears of it —
// and recorded as a failed attempt that viewers see only as a class.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e/support/server_process.h"
#include "e2e/support/wait.h"
#include "e2e/support/webhook_receiver.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::string Str(const json::value& v) { return v.is_string() ? std::string(v.as_string()) : ""; }

class WebhookTargetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(receiver_.listening());
    server_.options().extra_args = {
        "--webhook-retry-base-ms", "100", "--api-key", "admin:adm", "--api-key", "viewer:view"};
  }
  void TearDown() override {
    if (server_.running()) {
      EXPECT_EQ(server_.Stop(), 0) << server_.Stderr();
    }
  }
  JsonResponse Call(const std::string& key, const std::string& method, const std::string& path,
                    const json::value& body = nullptr) {
    HttpClient client = server_.Client();
    client.set_bearer_token(key);
    if (body.is_null()) return client.JsonRequest(method, "/api/v1" + path);
    return client.JsonRequest(method, "/api/v1" + path, body);
  }
  JsonResponse CreateHook(const std::string& url) {
    return Call("adm", "POST", "/outgoing-webhooks",
                json::object{{"name", "t"}, {"url", url}, {"events", json::array{"job.created"}}});
  }

  WebhookReceiver receiver_;
  ServerProcess server_;
};

TEST_F(WebhookTargetsTest, LiteralLoopbackUrlsAreRefusedWhenWritten) {
  ASSERT_TRUE(server_.Start());
  const std::string port = std::to_string(receiver_.port());
  for (const std::string& url : std::vector<std::string>{
           receiver_.url(), "http://127.1:" + port + "/hook", "http://2130706433:" + port + "/",
           "http://[::ffff:127.0.0.1]:" + port + "/", "http://169.254.169.254/latest/meta-data/",
           "http://localhost:" + port + "/"}) {
    JsonResponse r = CreateHook(url);
    ASSERT_EQ(r.status, 400) << url << ": " << r.raw.body;
    EXPECT_EQ(r.body.at("code"), "VALIDATION_ERROR") << url;
    EXPECT_EQ(r.body.at("details").at("field"), "url") << url;
  }
  JsonResponse ok = CreateHook("https://hooks.example.com/x");
  ASSERT_EQ(ok.status, 201) << ok.raw.body;
  const std::string path = "/outgoing-webhooks/" + std::string(ok.body.at("id").as_string());
  JsonResponse put = Call("adm", "PUT", path, json::object{{"url", receiver_.url()}});
  EXPECT_EQ(put.status, 400) << put.raw.body;
  EXPECT_EQ(put.body.at("details").at("field"), "url");
  EXPECT_EQ(Call("adm", "GET", "/outgoing-webhooks").body.as_array().size(), 1u);
}

// A webhook written while private targets were allowed (or a name that
// resolves to loopback) is checked again at every send.
TEST_F(WebhookTargetsTest, DeliveriesToLoopbackAreRefusedWhenSent) {
  server_.options().extra_args.push_back("--webhook-allow-private-targets");
  ASSERT_TRUE(server_.Start());
  JsonResponse created = CreateHook(receiver_.url());
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string hook = std::string(created.body.at("id").as_string());
  server_.options().extra_args.pop_back();
  ASSERT_TRUE(server_.Restart());

  ASSERT_EQ(Call("adm", "POST", "/jobs",
                 json::object{{"queue_name", "q"}, {"payload", json::object{{"n", 1}}}})
                .status,
            201);
  json::value delivery;
  ASSERT_TRUE(WaitUntil([&] {
    JsonResponse r = Call("adm", "GET", "/outgoing-webhooks/" + hook + "/deliveries");
    if (r.status != 200 || r.body.as_array().empty()) return false;
    delivery = r.body.as_array()[0];
    return delivery.at("attempts").as_int64() >= 1;
  })) << server_.Stderr();
  EXPECT_EQ(delivery.at("last_error"), "target address not allowed");
  EXPECT_TRUE(delivery.at("last_status_code").is_null());
  JsonResponse viewer = Call("view", "GET", "/outgoing-webhooks/" + hook + "/deliveries");
  ASSERT_EQ(viewer.status, 200);
  EXPECT_EQ(viewer.body.as_array()[0].at("last_error"), "delivery failed");

  JsonResponse test = Call("adm", "POST", "/outgoing-webhooks/" + hook + "/test", json::object{});
  ASSERT_EQ(test.status, 200) << test.raw.body;
  EXPECT_EQ(test.body.at("success"), false);
  EXPECT_EQ(test.body.at("error"), "target address not allowed");
  EXPECT_TRUE(receiver_.Requests().empty()) << "the receiver on loopback was reached";
}

TEST_F(WebhookTargetsTest, ViewersSeeTheUrlWithoutPathQueryOrUserinfo) {
  server_.options().extra_args.push_back("--webhook-allow-private-targets");
  ASSERT_TRUE(server_.Start());
  const std::string origin = "http://127.0.0.1:" + std::to_string(receiver_.port());
  const std::string url =
      "http://bot:pw@127.0.0.1:" + std::to_string(receiver_.port()) + "/services/T0/B0/t0k3n?x=1";
  JsonResponse created = CreateHook(url);
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string path = "/outgoing-webhooks/" + std::string(created.body.at("id").as_string());
  EXPECT_EQ(Str(Call("adm", "GET", path).body.at("url")), url);
  EXPECT_EQ(Str(Call("adm", "GET", "/outgoing-webhooks").body.at(0).at("url")), url);
  JsonResponse one = Call("view", "GET", path);
  JsonResponse list = Call("view", "GET", "/outgoing-webhooks");
  EXPECT_EQ(Str(one.body.at("url")), origin + "/…");
  EXPECT_EQ(Str(list.body.at(0).at("url")), origin + "/…");
  for (const JsonResponse* r : {&one, &list}) {
    EXPECT_EQ(r->raw.body.find("t0k3n"), std::string::npos) << r->raw.body;
    EXPECT_EQ(r->raw.body.find("pw@"), std::string::npos) << r->raw.body;
  }
}

}  // namespace
}  // namespace redrive::e2e
