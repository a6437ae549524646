// Beast lives only in this translation unit (compile time): the listener and
// the server that owns the I/O threads here, the per-connection session in
// http_session.h. The shape follows Beast's advanced async server example,
// plus a registry of sessions so Stop() can drain them.
#include "server/http_server.h"

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/thread_name.h"
#include "server/http_session.h"
#include "server/serve_config.h"

namespace redrive::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using internal::Session;
using internal::Shared;

// Accepts connections and starts a Session for each.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(asio::io_context& ioc, std::shared_ptr<Shared> shared)
      : ioc_(ioc),
        acceptor_(asio::make_strand(ioc)),
        retry_timer_(acceptor_.get_executor()),
        shared_(std::move(shared)) {}

  Status Listen(const tcp::endpoint& endpoint) {
    beast::error_code ec;
    acceptor_.open(endpoint.protocol(), ec);
    // SO_REUSEADDR lets a restart bind while old connections sit in TIME_WAIT;
    // on Linux it still fails if another socket is listening there.
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Status::Unavailable(ec.message());
    return Status::Ok();
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void Start() {
    asio::dispatch(acceptor_.get_executor(), [self = shared_from_this()] { self->Accept(); });
  }

  // Thread-safe.
  void PostClose() {
    asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
      beast::error_code ignored;
      self->retry_timer_.cancel();
      self->acceptor_.close(ignored);
    });
  }

 private:
  void Accept() {
    // Each connection gets its own strand, so its handlers never run
    // concurrently while connections proceed in parallel.
    acceptor_.async_accept(asio::make_strand(ioc_),
                           beast::bind_front_handler(&Listener::OnAccept, shared_from_this()));
  }

  void OnAccept(beast::error_code ec, tcp::socket socket) {
    if (!acceptor_.is_open() || ec == asio::error::operation_aborted) return;
    if (ec) {
      // E.g. out of file descriptors: back off instead of spinning.
      spdlog::warn("accept failed: {}", ec.message());
      retry_timer_.expires_after(std::chrono::milliseconds(100));
      retry_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec) self->Accept();
      });
      return;
    }
    if (shared_->stopping) return;  // `socket` closes as it goes out of scope
    std::shared_ptr<Session> session;
    {
      std::lock_guard lock(shared_->mu);
      const bool over_capacity = shared_->served_connections >= shared_->options.max_connections;
      if (!over_capacity) ++shared_->served_connections;
      session = std::make_shared<Session>(std::move(socket), shared_, over_capacity);
      shared_->sessions.emplace(session.get(), session);
    }
    session->Start();
    Accept();
  }

  asio::io_context& ioc_;
  tcp::acceptor acceptor_;
  asio::steady_timer retry_timer_;
  std::shared_ptr<Shared> shared_;
};

Result<tcp::endpoint> Resolve(asio::io_context& ioc, const std::string& host, uint16_t port) {
  beast::error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (!ec) return tcp::endpoint(address, port);
  tcp::resolver resolver(ioc);
  auto results = resolver.resolve(host, std::to_string(port), ec);
  if (ec || results.empty()) {
    return Status::Validation("listen", "cannot resolve host '" + host + "': " + ec.message());
  }
  return results.begin()->endpoint();
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, Handler handler)
      : ioc_(std::max(1, options.io_threads)), shared_(std::make_shared<Shared>()) {
    shared_->options = std::move(options);
    shared_->handler = std::move(handler);
  }

  ~Impl() { Stop(); }

  Status Start() {
    const HttpServerOptions& options = shared_->options;
    std::string address = FormatHostPort(options.host, options.port);
    auto endpoint = Resolve(ioc_, options.host, options.port);
    if (!endpoint.ok()) return endpoint.status();
    listener_ = std::make_shared<Listener>(ioc_, shared_);
    if (Status st = listener_->Listen(*endpoint); !st.ok()) {
      return Status::Unavailable("cannot listen on " + address + ": " + st.message());
    }
    port_ = listener_->port();
    listener_->Start();
    // Keeps run() going while sessions wait for handlers with no I/O pending.
    work_.emplace(ioc_.get_executor());
    for (int i = 0; i < std::max(1, options.io_threads); ++i) {
      threads_.emplace_back([this] {
        SetThreadName("rd-io");
        ioc_.run();
      });
    }
    started_ = true;
    return Status::Ok();
  }

  uint16_t port() const { return port_; }

  void Drain() {
    if (!started_ || draining_) return;
    draining_ = true;
    shared_->stopping = true;
    listener_->PostClose();
    std::lock_guard lock(shared_->mu);
    for (auto& [ptr, session] : shared_->sessions) session->PostShutdown();
  }

  void Stop() {
    if (!started_ || stopped_) return;
    Drain();
    stopped_ = true;
    std::unique_lock lock(shared_->mu);
    bool drained = shared_->sessions_empty.wait_for(lock, shared_->options.shutdown_grace,
                                                    [&] { return shared_->sessions.empty(); });
    if (!drained) {
      spdlog::warn("closing {} connection(s) still busy after {} ms", shared_->sessions.size(),
                   shared_->options.shutdown_grace.count());
    }
    lock.unlock();

    work_.reset();
    ioc_.stop();
    for (std::thread& t : threads_) t.join();
    threads_.clear();

    std::unordered_map<Session*, std::shared_ptr<Session>> leftover;
    {
      std::lock_guard guard(shared_->mu);
      shared_->accepting_responses = false;
      leftover.swap(shared_->sessions);
    }
    for (auto& [ptr, session] : leftover) session->CloseAfterIoStopped();
    // `leftover` dies here, off the lock; ioc_ is still alive for the sockets.
  }

 private:
  asio::io_context ioc_;  // declared first: destroyed after everything using it
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<Listener> listener_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool draining_ = false;
  bool stopped_ = false;
};

HttpServer::HttpServer(HttpServerOptions options, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}

HttpServer::~HttpServer() = default;

Status HttpServer::Start() { return impl_->Start(); }

uint16_t HttpServer::port() const { return impl_->port(); }

void HttpServer::Drain() { impl_->Drain(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace redrive::server
