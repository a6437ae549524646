// The server over real loopback sockets with stub handlers: translation,
// keep-alive, pipelining, limits, timeouts and graceful stop. Waits are socket
// reads with deadlines, never sleeps.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace redrive::server {
namespace {

using namespace std::chrono_literals;

// A blocking loopback connection that reads HTTP responses as raw text.
class Conn {
 public:
  explicit Conn(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Conn() { close(fd_); }

  bool connected() const { return connected_; }
  void Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }

  // One response: status line, headers and a Content-Length body. Empty if
  // the connection closed (or timed out) first.
  std::string ReadResponse() {
    size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return "";
    }
    size_t body_len = 0;
    size_t cl = Lower(buffer_.substr(0, head_end)).find("content-length:");
    if (cl != std::string::npos) body_len = std::stoul(buffer_.substr(cl + 15));
    size_t total = head_end + 4 + body_len;
    while (buffer_.size() < total) {
      if (!Fill()) return "";
    }
    std::string response = buffer_.substr(0, total);
    buffer_.erase(0, total);
    return response;
  }

  // A response's status line and headers only (the answer to a HEAD).
  std::string ReadHead() {
    size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return "";
    }
    std::string head = buffer_.substr(0, head_end + 4);
    buffer_.erase(0, head_end + 4);
    return head;
  }

  // True once the server closed the connection: an orderly EOF, or a reset
  // (a close with unread data in the server's buffer sends RST instead).
  bool ReadsEof() {
    char c;
    const ssize_t n = recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

 private:
  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  bool Fill() {
    char chunk[4096];
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  bool connected_ = false;
  std::string buffer_;
};

int StatusOf(const std::string& response) {
  return response.size() > 12 ? std::stoi(response.substr(9, 3)) : 0;
}
std::string BodyOf(const std::string& response) {
  size_t p = response.find("\r\n\r\n");
  return p == std::string::npos ? "" : response.substr(p + 4);
}
bool HasHeader(const std::string& response, const std::string& line) {
  return response.find("\r\n" + line + "\r\n") != std::string::npos;
}

std::string Get(const std::string& target) {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
}

api::Response WithBody(std::string body) {
  api::Response response;
  response.body = std::move(body);
  return response;
}

// Answers every request with its target as the body.
void EchoTarget(api::Request request, api::Responder respond) {
  api::Response response;
  response.content_type = "text/plain";
  response.body = request.target;
  respond(std::move(response));
}

HttpServerOptions TestOptions() {
  HttpServerOptions options;
  options.port = 0;
  options.io_threads = 2;
  return options;
}

TEST(HttpServerTest, BodylessAnswerWithoutTypeSendsNoContentType) {
  HttpServer server(TestOptions(), [](api::Request, api::Responder respond) {
    api::Response response;
    response.status = 304;
    response.content_type.clear();
    response.headers.emplace_back("ETag", "\"e1\"");
    respond(std::move(response));
  });
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send(Get("/console/app.js"));
  std::string response = conn.ReadResponse();
  EXPECT_EQ(StatusOf(response), 304);
  EXPECT_EQ(response.find("Content-Type"), std::string::npos) << response;
  EXPECT_TRUE(HasHeader(response, "ETag: \"e1\"")) << response;
}

TEST(HttpServerTest, TranslatesRequestAndResponse) {
  std::promise<api::Request> seen;
  HttpServer server(TestOptions(), [&](api::Request request, api::Responder respond) {
    seen.set_value(request);
    api::Response response;
    response.status = 201;
    response.body = R"({"ok":true})";
    response.headers.emplace_back("X-Extra", "1");
    respond(std::move(response));
  });
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.port(), 0);

  Conn conn(server.port());
  conn.Send(
      "POST /api/v1/jobs?x=1 HTTP/1.1\r\nHost: h\r\nX-Custom-Header: A\r\nAccept: a\r\n"
      "Accept: b\r\nContent-Length: 5\r\n\r\nhello");
  std::string response = conn.ReadResponse();
  EXPECT_EQ(StatusOf(response), 201);
  EXPECT_TRUE(HasHeader(response, "Content-Type: application/json")) << response;
  EXPECT_TRUE(HasHeader(response, "X-Extra: 1")) << response;
  EXPECT_EQ(BodyOf(response), R"({"ok":true})");

  api::Request request = seen.get_future().get();
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/api/v1/jobs?x=1");
  EXPECT_EQ(request.body, "hello");
  EXPECT_TRUE(request.from_loopback);
  ASSERT_NE(request.header("x-custom-header"), nullptr);
  EXPECT_EQ(*request.header("x-custom-header"), "A");
  EXPECT_EQ(*request.header("accept"), "a, b");
}

TEST(HttpServerTest, KeepAliveAndPipelining) {
  HttpServer server(TestOptions(), EchoTarget);
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send(Get("/one"));
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/one");
  conn.Send(Get("/two") + Get("/three") + Get("/four"));  // pipelined
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/two");
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/three");
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/four");
}

TEST(HttpServerTest, AnswersFromAnotherThread) {
  std::mutex mu;
  std::vector<std::thread> threads;
  HttpServer server(TestOptions(), [&](api::Request request, api::Responder respond) {
    std::lock_guard lock(mu);
    threads.emplace_back([request = std::move(request), respond = std::move(respond)] {
      EchoTarget(request, respond);
    });
  });
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send(Get("/a") + Get("/b"));
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/a");
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/b");
  server.Stop();
  for (auto& t : threads) t.join();
}

TEST(HttpServerTest, OversizeBodyGets413AndOthersAreUnaffected) {
  HttpServerOptions options = TestOptions();
  options.max_body_bytes = 10;
  HttpServer server(options, EchoTarget);
  ASSERT_TRUE(server.Start().ok());

  Conn other(server.port());  // opened before, must survive
  Conn conn(server.port());
  conn.Send("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\n\r\n0123456789abc");
  std::string response = conn.ReadResponse();
  EXPECT_EQ(StatusOf(response), 413) << response;
  EXPECT_EQ(BodyOf(response).find(R"({"code":"PAYLOAD_TOO_LARGE")"), 0u) << response;
  EXPECT_TRUE(HasHeader(response, "Connection: close")) << response;
  EXPECT_TRUE(conn.ReadsEof());

  // Chunked bodies have no Content-Length to check up front.
  Conn chunked(server.port());
  chunked.Send(
      "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "8\r\n01234567\r\n8\r\n01234567\r\n0\r\n\r\n");
  EXPECT_EQ(StatusOf(chunked.ReadResponse()), 413);

  other.Send(Get("/still-here"));
  EXPECT_EQ(BodyOf(other.ReadResponse()), "/still-here");
}

TEST(HttpServerTest, GarbageGets400AndServerKeepsServing) {
  HttpServer server(TestOptions(), EchoTarget);
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send(std::string("\x16\x03\x01\x02\x00garbage\r\n\r\n", 17));
  std::string response = conn.ReadResponse();
  EXPECT_EQ(StatusOf(response), 400) << response;
  EXPECT_NE(BodyOf(response).find(R"("code":"BAD_REQUEST")"), std::string::npos);
  EXPECT_TRUE(conn.ReadsEof());

  Conn next(server.port());
  next.Send(Get("/ok"));
  EXPECT_EQ(BodyOf(next.ReadResponse()), "/ok");
}

// Only "chunked" alone frames a request body; anything else is refused
// before the handler runs, and the connection closes.
TEST(HttpServerTest, TransferEncodingOtherThanChunkedGets400) {
  std::atomic<int> handled{0};
  HttpServer server(TestOptions(), [&](api::Request request, api::Responder respond) {
    ++handled;
    EchoTarget(std::move(request), std::move(respond));
  });
  ASSERT_TRUE(server.Start().ok());
  for (std::string coding :
       {"gzip", "chunked, gzip", "gzip, chunked", "identity", "chunked, chunked"}) {
    Conn conn(server.port());
    conn.Send("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: " + coding +
              "\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
    std::string response = conn.ReadResponse();
    EXPECT_EQ(StatusOf(response), 400) << coding << ": " << response;
    EXPECT_EQ(BodyOf(response).find(R"({"code":"BAD_REQUEST")"), 0u) << response;
    EXPECT_TRUE(HasHeader(response, "Connection: close")) << response;
    EXPECT_TRUE(conn.ReadsEof()) << coding;
  }
  // Two Transfer-Encoding lines combine, like one "chunked, gzip".
  Conn split(server.port());
  split.Send(
      "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
      "Transfer-Encoding: gzip\r\n\r\n0\r\n\r\n");
  EXPECT_EQ(StatusOf(split.ReadResponse()), 400);
  EXPECT_EQ(handled, 0);

  Conn chunked(server.port());  // the one coding we read, in any case
  chunked.Send("POST /ok HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n");
  EXPECT_EQ(BodyOf(chunked.ReadResponse()), "/ok");
}

TEST(HttpServerTest, Http11WithoutHostGets400) {
  HttpServer server(TestOptions(), EchoTarget);
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send("GET /x HTTP/1.1\r\n\r\n");
  std::string response = conn.ReadResponse();
  EXPECT_EQ(StatusOf(response), 400) << response;
  EXPECT_NE(BodyOf(response).find("Host"), std::string::npos) << response;
  EXPECT_TRUE(conn.ReadsEof());

  Conn twice(server.port());
  twice.Send("GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
  EXPECT_EQ(StatusOf(twice.ReadResponse()), 400);

  Conn http10(server.port());  // HTTP/1.0 has no Host requirement
  http10.Send("GET /old HTTP/1.0\r\n\r\n");
  EXPECT_EQ(BodyOf(http10.ReadResponse()), "/old");
}

TEST(HttpServerTest, HeadGetsTheHeadersWithoutTheBody) {
  HttpServer server(TestOptions(), [](api::Request request, api::Responder respond) {
    api::Response response;
    response.body = request.method + " body";
    respond(std::move(response));
  });
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  // Pipelined: if the HEAD answer carried a body, the GET answer would not
  // start where the HEAD answer's headers end.
  conn.Send("HEAD /health HTTP/1.1\r\nHost: h\r\n\r\n" + Get("/health"));
  std::string head = conn.ReadHead();
  EXPECT_EQ(StatusOf(head), 200) << head;
  EXPECT_TRUE(HasHeader(head, "Content-Length: 9")) << head;  // "HEAD body"
  std::string get = conn.ReadResponse();
  EXPECT_EQ(StatusOf(get), 200) << get;
  EXPECT_EQ(BodyOf(get), "GET body");
}

TEST(HttpServerTest, HandlerExceptionBecomes500) {
  HttpServer server(TestOptions(),
                    [](api::Request, api::Responder) { throw std::runtime_error("boom"); });
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send(Get("/"));
  std::string response = conn.ReadResponse();
  EXPECT_EQ(StatusOf(response), 500);
  EXPECT_NE(BodyOf(response).find("INTERNAL_ERROR"), std::string::npos);
}

TEST(HttpServerTest, SecondAnswerIsIgnored) {
  HttpServer server(TestOptions(), [](api::Request request, api::Responder respond) {
    EchoTarget(request, respond);
    respond(WithBody("/again"));
  });
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send(Get("/first") + Get("/second"));
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/first");
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "/second");
}

TEST(HttpServerTest, ExpectContinue) {
  HttpServer server(TestOptions(), [](api::Request request, api::Responder respond) {
    respond(WithBody(request.body));
  });
  ASSERT_TRUE(server.Start().ok());
  Conn conn(server.port());
  conn.Send("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(StatusOf(conn.ReadResponse()), 100);
  conn.Send("abc");
  EXPECT_EQ(BodyOf(conn.ReadResponse()), "abc");
}

TEST(HttpServerTest, SlowClientIsDropped) {
  HttpServerOptions options = TestOptions();
  options.read_timeout = 200ms;
  HttpServer server(options, EchoTarget);
  ASSERT_TRUE(server.Start().ok());
  Conn slow(server.port());
  slow.Send("GET / HTTP/1.1\r\nHost:");  // and never more
  EXPECT_TRUE(slow.ReadsEof());
  Conn idle(server.port());  // keep-alive idling counts too
  idle.Send(Get("/"));
  EXPECT_EQ(BodyOf(idle.ReadResponse()), "/");
  EXPECT_TRUE(idle.ReadsEof());
}

TEST(HttpServerTest, StartFailsWhenPortInUse) {
  HttpServer first(TestOptions(), EchoTarget);
  ASSERT_TRUE(first.Start().ok());
  HttpServerOptions options = TestOptions();
  options.port = first.port();
  HttpServer second(options, EchoTarget);
  Status st = second.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos)
      << st.message();
}

TEST(HttpServerTest, StopFinishesInFlightAndClosesIdle) {
  std::promise<api::Responder> held;
  HttpServer server(TestOptions(), [&](api::Request request, api::Responder respond) {
    if (request.target == "/hold") {
      held.set_value(std::move(respond));
    } else {
      EchoTarget(request, respond);
    }
  });
  ASSERT_TRUE(server.Start().ok());
  Conn idle(server.port());
  idle.Send(Get("/warm"));
  EXPECT_EQ(BodyOf(idle.ReadResponse()), "/warm");
  auto busy = std::make_unique<Conn>(server.port());
  busy->Send(Get("/hold"));
  api::Responder respond = held.get_future().get();

  std::thread stopper([&] { server.Stop(); });
  EXPECT_TRUE(idle.ReadsEof());  // closed by Stop while the other is in flight
  respond(WithBody("late but delivered"));
  std::string response = busy->ReadResponse();
  EXPECT_EQ(BodyOf(response), "late but delivered");
  EXPECT_TRUE(HasHeader(response, "Connection: close")) << response;
  busy.reset();  // a polite client hangs up after "Connection: close"
  stopper.join();
  // (That the listener is closed is not checked by connecting to its port:
  // tests running in parallel may already have been given the same port.)
}

TEST(HttpServerTest, DrainDoesNotWaitAndStopThenDeliversTheAnswer) {
  std::promise<api::Responder> held;
  HttpServer server(TestOptions(), [&](api::Request, api::Responder respond) {
    held.set_value(std::move(respond));
  });
  ASSERT_TRUE(server.Start().ok());
  Conn busy(server.port());
  busy.Send(Get("/hold"));
  api::Responder respond = held.get_future().get();
  server.Drain();  // returns although a request is in flight
  respond(WithBody("answered while draining"));
  EXPECT_EQ(BodyOf(busy.ReadResponse()), "answered while draining");
  EXPECT_TRUE(busy.ReadsEof());
  server.Stop();
}

TEST(HttpServerTest, StopGivesUpAfterGraceAndLateAnswersAreDropped) {
  HttpServerOptions options = TestOptions();
  options.shutdown_grace = 100ms;
  std::promise<api::Responder> held;
  auto server = std::make_unique<HttpServer>(
      options, [&](api::Request, api::Responder respond) { held.set_value(std::move(respond)); });
  ASSERT_TRUE(server->Start().ok());
  Conn conn(server->port());
  conn.Send(Get("/never"));
  api::Responder respond = held.get_future().get();
  server->Stop();
  EXPECT_TRUE(conn.ReadsEof());
  server.reset();
  respond(api::Response{});  // after the server is gone: dropped, no crash
}

}  // namespace
}  // namespace redrive::server

namespace redrive::server {
namespace {

// Refuses requests without an Authorization header, as the API's Screen does.
std::optional<api::Response> RequireAuthorization(const api::Request& head) {
  if (head.header("authorization") != nullptr) return std::nullopt;
  api::Response response;
  response.status = 401;
  response.body = R"({"code":"UNAUTHORIZED","message":"no key","details":{}})";
  return response;
}

TEST(HttpServerTest, ScreenAnswersOnTheHeadWithoutReadingTheBody) {
  HttpServerOptions options = TestOptions();
  options.screen = RequireAuthorization;
  std::atomic<int> handled{0};
  HttpServer server(options, [&](api::Request request, api::Responder respond) {
    ++handled;
    respond(WithBody(request.body + "|" + request.client_address));
  });
  ASSERT_TRUE(server.Start().ok());

  // A 15 MiB upload announced, nothing of it sent: refused at once, with no
  // "100 Continue", and the connection closes (the body was never read).
  Conn upload(server.port());
  upload.Send(
      "POST /api/v1/jobs HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n"
      "Content-Length: 15728640\r\n\r\n");
  std::string refused = upload.ReadResponse();
  EXPECT_EQ(StatusOf(refused), 401) << refused;
  EXPECT_TRUE(HasHeader(refused, "Connection: close")) << refused;
  EXPECT_TRUE(upload.ReadsEof());

  // Without a body the connection stays usable.
  Conn keep(server.port());
  keep.Send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(StatusOf(keep.ReadResponse()), 401);
  keep.Send(
      "POST /b HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer k\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(BodyOf(keep.ReadResponse()), "abc|127.0.0.1");
  EXPECT_EQ(handled.load(), 1);
}

TEST(HttpServerTest, ConnectionsOverTheCapGet503) {
  HttpServerOptions options = TestOptions();
  options.max_connections = 2;
  HttpServer server(options, EchoTarget);
  ASSERT_TRUE(server.Start().ok());
  auto a = std::make_unique<Conn>(server.port());
  Conn b(server.port());
  for (Conn* c : {a.get(), &b}) {  // both accepted and served
    c->Send(Get("/x"));
    ASSERT_EQ(StatusOf(c->ReadResponse()), 200);
  }
  Conn over(server.port());
  over.Send(Get("/x"));
  std::string refused = over.ReadResponse();
  EXPECT_EQ(StatusOf(refused), 503) << refused;
  EXPECT_EQ(BodyOf(refused).find(R"({"code":"SERVICE_UNAVAILABLE")"), 0u) << refused;
  EXPECT_TRUE(over.ReadsEof());
  b.Send(Get("/still-served"));
  EXPECT_EQ(BodyOf(b.ReadResponse()), "/still-served");

  // Once one closes, a new connection is served again. (The server notices
  // the close asynchronously, and the refused one lingers briefly: retry on
  // fresh connections, each attempt a real answer, a bounded number of times.)
  a.reset();
  int status = 0;
  for (int attempt = 0; attempt < 200 && status != 200; ++attempt) {
    Conn again(server.port());
    again.Send(Get("/x"));
    status = StatusOf(again.ReadResponse());
    if (status != 200) std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(status, 200);
}

TEST(HttpServerTest, BodiesInFlightAreCappedAcrossConnections) {
  HttpServerOptions options = TestOptions();
  options.max_body_bytes = 100;
  options.max_buffered_body_bytes = 100;
  std::mutex mu;
  std::vector<api::Responder> parked;
  std::promise<void> first_parked;
  HttpServer server(options, [&](api::Request request, api::Responder respond) {
    if (request.target != "/park") return respond(WithBody(request.body));
    std::lock_guard lock(mu);
    parked.push_back(std::move(respond));
    first_parked.set_value();
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string sixty(60, 'x');
  Conn holder(server.port());
  holder.Send("POST /park HTTP/1.1\r\nHost: h\r\nContent-Length: 60\r\n\r\n" + sixty);
  first_parked.get_future().wait();

  // 60 held + 60 announced > 100: refused before the body is read.
  Conn second(server.port());
  second.Send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 60\r\n\r\n" + sixty);
  std::string busy = second.ReadResponse();
  EXPECT_EQ(StatusOf(busy), 503) << busy;
  EXPECT_EQ(BodyOf(busy).find(R"({"code":"SERVICE_UNAVAILABLE")"), 0u) << busy;
  EXPECT_TRUE(second.ReadsEof());
  // A chunked body is counted as it grows.
  Conn chunked(server.port());
  chunked.Send(
      "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "1e\r\n" +
      std::string(30, 'y') + "\r\n1e\r\n" + std::string(30, 'y') + "\r\n0\r\n\r\n");
  EXPECT_EQ(StatusOf(chunked.ReadResponse()), 503);
  // Small enough still fits.
  Conn small(server.port());
  small.Send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 40\r\n\r\n" + std::string(40, 'z'));
  EXPECT_EQ(BodyOf(small.ReadResponse()), std::string(40, 'z'));

  // Answering the parked request gives its bytes back.
  {
    std::lock_guard lock(mu);
    parked.front()(WithBody("done"));
  }
  EXPECT_EQ(BodyOf(holder.ReadResponse()), "done");
  Conn third(server.port());
  third.Send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 60\r\n\r\n" + sixty);
  EXPECT_EQ(BodyOf(third.ReadResponse()), sixty);
}

}  // namespace
}  // namespace redrive::server
