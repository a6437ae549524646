#include "outbound_http/http_sender.h"

#include <openssl/err.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/url/parse.hpp>
#include <exception>
#include <optional>
#include <vector>

#include "engine/webhooks/target_address.h"
#include "outbound_http/signature.h"

namespace redrive::outbound_http {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using Request = http::request<http::string_body>;
using Parser = http::response_parser<http::string_body>;

// Receivers answer with a status; their bodies are not read further than this.
constexpr size_t kMaxResponseBody = 64 * 1024;

struct Target {
  bool https = false;
  std::string host_header;  // as in the URL: with the port if it names one
  std::string host;
  std::string port;
  std::string path;          // with the query
  bool host_is_name = true;  // not an IP literal (SNI takes names only)
};

std::optional<Target> ParseTarget(const std::string& url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u) return std::nullopt;
  Target t;
  if (u->scheme() == "https") {
    t.https = true;
  } else if (u->scheme() != "http") {
    return std::nullopt;
  }
  t.host_header = std::string(u->encoded_host_and_port());
  t.host = u->host_address();
  t.host_is_name =
      u->host_type() ==
      boost::urls::host_type::name;  // IPv6 literals without brackets, as the resolver wants
  if (t.host.empty()) return std::nullopt;
  t.port = u->has_port() ? std::string(u->port()) : (t.https ? "443" : "80");
  t.path = u->encoded_path().empty() ? "/" : std::string(u->encoded_path());
  if (u->has_query()) t.path += "?" + std::string(u->encoded_query());
  return t;
}

template <typename Stream>
net::awaitable<void> Exchange(Stream& stream, Request& req, Parser& parser) {
  co_await http::async_write(stream, req, net::use_awaitable);
  beast::flat_buffer buffer;
  co_await http::async_read(stream, buffer, parser, net::use_awaitable);
}

engine::IpAddress ToIpAddress(const net::ip::address& a) {
  if (a.is_v4()) return engine::IpAddress::V4(a.to_v4().to_uint());
  return engine::IpAddress::V6(a.to_v6().to_bytes());
}

// The resolved endpoints the policy allows. These, and only these, are
// connected to: the check is on the addresses actually used, so a name that
// resolves differently later (DNS rebinding) cannot slip past it.
std::vector<tcp::endpoint> AllowedEndpoints(const tcp::resolver::results_type& resolved,
                                            bool allow_private_targets) {
  std::vector<tcp::endpoint> allowed;
  for (const auto& entry : resolved) {
    const tcp::endpoint& e = entry.endpoint();
    if (allow_private_targets || engine::IsGlobalAddress(ToIpAddress(e.address()))) {
      allowed.push_back(e);
    }
  }
  return allowed;
}

// The whole exchange; a closed or reset connection after the status line
// has been read still counts as an answer. Sets `refused` (and sends
// nothing) when no resolved address of the target is allowed.
net::awaitable<void> Post(const Target& t, Request& req, Parser& parser, ssl::context& tls,
                          std::chrono::steady_clock::time_point deadline,
                          bool allow_private_targets, bool& refused) {
  auto ex = co_await net::this_coro::executor;
  tcp::resolver resolver(ex);
  auto resolved = co_await resolver.async_resolve(t.host, t.port, net::use_awaitable);
  const std::vector<tcp::endpoint> endpoints = AllowedEndpoints(resolved, allow_private_targets);
  if (endpoints.empty()) {
    refused = true;
    co_return;
  }
  if (!t.https) {
    beast::tcp_stream stream(ex);
    stream.expires_at(deadline);
    co_await stream.async_connect(endpoints, net::use_awaitable);
    co_await Exchange(stream, req, parser);
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> stream(ex, tls);
  // SNI, and the certificate must name the host.
  if (t.host_is_name && !SSL_set_tlsext_host_name(stream.native_handle(), t.host.c_str())) {
    throw beast::system_error(
        beast::error_code(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category()));
  }
  stream.set_verify_mode(ssl::verify_peer);
  stream.set_verify_callback(ssl::host_name_verification(t.host));
  beast::get_lowest_layer(stream).expires_at(deadline);
  co_await beast::get_lowest_layer(stream).async_connect(endpoints, net::use_awaitable);
  co_await stream.async_handshake(ssl::stream_base::client, net::use_awaitable);
  co_await Exchange(stream, req, parser);
  // No TLS shutdown: the answer is in, and many servers just close.
}

std::string Shorten(std::string s) {
  constexpr size_t kMaxError = 200;
  if (s.size() > kMaxError) s.resize(kMaxError);
  return s;
}

}  // namespace

struct HttpSender::Tls {
  ssl::context context{ssl::context::tls_client};
};

HttpSender::HttpSender(HttpSenderOptions options)
    : options_(std::move(options)), tls_(std::make_unique<Tls>()) {
  tls_->context.set_default_verify_paths();
  tls_->context.set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                            ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
}

HttpSender::~HttpSender() = default;

AttemptResult HttpSender::Send(const engine::OutgoingPost& post, Instant now) {
  const auto started = std::chrono::steady_clock::now();
  AttemptResult result;
  auto finish = [&](AttemptResult r) {
    r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    return r;
  };
  std::optional<Target> target = ParseTarget(post.url);
  if (!target) return finish({false, std::nullopt, "invalid URL"});

  const int64_t timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  Request req{http::verb::post, target->path, 11};
  req.set(http::field::host, target->host_header);
  req.set(http::field::user_agent, options_.user_agent);
  req.set(http::field::content_type, "application/json");
  req.set(http::field::connection, "close");
  // The same HMAC either way; Spooled's header names let a receiver written
  // for Spooled verify it unchanged (it has no delivery id; it counts attempts).
  const std::string signature = SignatureHeader(post.secret, timestamp, post.body);
  if (post.signature_format == SignatureFormat::kSpooled) {
    req.set("X-Spooled-Event", post.event);
    req.set("X-Spooled-Delivery-Attempt", std::to_string(post.attempt));
    req.set("X-Spooled-Timestamp", std::to_string(timestamp));
    req.set("X-Spooled-Signature", signature);
  } else {
    req.set("X-Redrive-Event", post.event);
    req.set("X-Redrive-Delivery", post.delivery_id);
    req.set("X-Redrive-Timestamp", std::to_string(timestamp));
    req.set("X-Redrive-Signature", signature);
  }
  req.body() = post.body;
  req.prepare_payload();

  Parser parser;
  parser.body_limit(kMaxResponseBody);
  const auto deadline = started + options_.timeout;
  std::exception_ptr failure;
  bool done = false;
  bool refused = false;
  // Declared last, destroyed first: a coroutine still pending after the
  // timeout is destroyed with it, while everything it refers to is alive.
  net::io_context ioc;
  net::co_spawn(
      ioc,
      Post(*target, req, parser, tls_->context, deadline, options_.allow_private_targets, refused),
      [&](std::exception_ptr e) {
        failure = e;
        done = true;
      });
  // The streams time out by themselves; this bounds name resolution too.
  ioc.run_for(options_.timeout + std::chrono::milliseconds(100));
  if (!done) return finish({false, std::nullopt, "timed out"});
  if (refused) {
    return finish({false, std::nullopt, std::string(engine::kTargetNotAllowedError)});
  }
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const beast::system_error& e) {
      if (!parser.is_header_done()) {
        const bool timeout = e.code() == beast::error::timeout;
        return finish({false, std::nullopt, timeout ? "timed out" : Shorten(e.code().message())});
      }
    } catch (const std::exception& e) {
      return finish({false, std::nullopt, Shorten(e.what())});
    }
  }
  const int status = static_cast<int>(parser.get().result_int());
  result.status_code = status;
  result.success = status >= 200 && status < 300;
  if (!result.success) result.error = "HTTP " + std::to_string(status);
  return finish(result);
}

}  // namespace redrive::outbound_http
