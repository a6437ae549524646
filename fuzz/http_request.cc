// fuzz_http_request: the bytes a client sends on one connection, read the way
// the server reads them (server/http_session.h): Beast's request parser with
// the server's header and body limits reads a head; the server's own header
// rules and Api::Screen judge it; the body is read and the request, built by
// the server's ToApiRequest, goes to Api::Handle on a real engine
// (api_harness.h); the answer is written as the server writes it. Up to
// kMaxRequests keep-alive requests are read from one input, as pipelining
// would send them.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "api_harness.h"
#include "server/http_server.h"
#include "server/http_session.h"  // RefusedHeader and ToApiRequest, the server's own checks

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using redrive::fuzz::ApiHarness;

constexpr int kMaxRequests = 8;
const redrive::server::HttpServerOptions kServer;  // the server's default limits

using Parser = http::request_parser<http::string_body>;

// Feeds `rest` to `parser` until it stops (a non-eager parser stops after the
// head); the end of the input is the client hanging up.
void Feed(Parser& parser, std::string_view& rest, beast::error_code& ec) {
  while (!rest.empty()) {
    const size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    rest.remove_prefix(used);
    if (ec == http::error::need_more) {
      ec = {};
      if (used == 0) break;  // it needs bytes the client never sent
      continue;
    }
    if (ec || parser.is_done() || (!parser.eager() && parser.is_header_done())) return;
  }
  if (!parser.is_done() && !(parser.is_header_done() && !parser.eager())) parser.put_eof(ec);
}

// Session::Write: the answer as a Beast message, serialized.
void WriteAsServer(const redrive::api::Response& response, unsigned version, bool keep_alive) {
  http::response<http::string_body> message;
  message.version(version);
  message.result(static_cast<unsigned>(response.status));
  if (!response.content_type.empty()) message.set(http::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) message.set(name, value);
  message.body() = response.body;
  message.keep_alive(keep_alive);
  message.prepare_payload();
  std::ostringstream out;
  out << message;
}

// One request from `rest`; false when the connection would close after it.
bool ServeOne(ApiHarness& harness, std::string_view& rest) {
  Parser parser;
  parser.body_limit(kServer.max_body_bytes);
  parser.header_limit(static_cast<uint32_t>(kServer.max_header_bytes));
  parser.eager(false);
  beast::error_code ec;
  Feed(parser, rest, ec);
  // A parse error or a limit is a 400 or 413 that closes the connection; an
  // incomplete head is a client that hung up.
  if (ec || !parser.is_header_done()) return false;
  // Refused with 400 by the server: it never reaches the Api.
  if (redrive::server::internal::RefusedHeader(parser.get())) return false;
  redrive::api::Request head =
      redrive::server::internal::ToApiRequest(parser.get(), true, "127.0.0.1");
  if (std::optional<redrive::api::Response> refusal = harness.ApiFor(head).Screen(head)) {
    redrive::fuzz::CheckResponse(*refusal, "Screen");
    const bool keep_alive = parser.is_done() && parser.get().keep_alive();
    WriteAsServer(*refusal, parser.get().version(), keep_alive);
    return keep_alive;
  }
  parser.eager(true);
  Feed(parser, rest, ec);
  if (ec || !parser.is_done()) return false;
  http::request<http::string_body> message = parser.release();
  redrive::api::Request request =
      redrive::server::internal::ToApiRequest(message, true, "127.0.0.1");
  request.body = std::move(message.body());
  redrive::api::Response response = harness.Send(std::move(request));
  WriteAsServer(response, message.version(), message.keep_alive());
  return message.keep_alive();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ApiHarness& harness = ApiHarness::Get();
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < kMaxRequests && !rest.empty(); ++i) {
    if (!ServeOne(harness, rest)) break;
  }
  return 0;
}
