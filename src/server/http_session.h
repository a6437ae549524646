// One HTTP connection of HttpServer: the Session (reading a request's head,
// screening it, reading its body within the server's budget, handing it to
// the handler, writing the answer, lingering, watching for a hang-up) and
// the state it shares with the server (Shared).
//
// Private to src/server: only http_server.cc includes it (Beast lives in
// that one translation unit, for compile time), and the HTTP fuzz target,
// which drives requests through the server's own conversion.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>
#include <unordered_map>

#include "api/event_stream.h"
#include "server/error_body.h"
#include "server/http_server.h"
#include "server/request_id.h"
#include "server/serve_config.h"

namespace redrive::server::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// After a response that closes the connection, how long we keep reading (and
// discarding) what the client still sends. Closing a socket with unread input
// makes the kernel send RST, which can destroy our response before the client
// reads it (e.g. a 413 while the client is still uploading).
constexpr std::chrono::seconds kLingerTimeout{2};

// What one read of the close watch (WatchForClose) takes at most.
constexpr size_t kWatchBytes = 4096;

class Session;

// State shared by the server, its sessions and every Responder handed out.
// Responders may outlive the server; they only ever touch this struct.
struct Shared {
  HttpServerOptions options;
  Handler handler;
  std::atomic<bool> stopping{false};

  std::mutex mu;
  std::condition_variable sessions_empty;
  // False once the I/O threads are gone: responses arriving later are dropped
  // instead of being posted to a dead io_context.
  bool accepting_responses = true;  // guarded by mu
  // Strong references to live sessions. A session waiting for its handler has
  // no pending I/O; this map is what keeps it alive (Responders hold only a
  // weak_ptr, so they never destroy a socket off the I/O threads).
  std::unordered_map<Session*, std::shared_ptr<Session>> sessions;  // guarded by mu
  // Sessions that count against max_connections: all but the refused ones
  // (which only write a 503 and linger a moment).
  size_t served_connections = 0;  // guarded by mu

  // Bytes of request bodies being read or handled, over all sessions.
  std::atomic<size_t> buffered_body_bytes{0};

  // Adds `bytes` to buffered_body_bytes unless that would pass the cap.
  bool TryReserveBody(size_t bytes) {
    size_t current = buffered_body_bytes.load();
    do {
      if (bytes > options.max_buffered_body_bytes ||
          current > options.max_buffered_body_bytes - bytes) {
        return false;
      }
    } while (!buffered_body_bytes.compare_exchange_weak(current, current + bytes));
    return true;
  }
  void ReleaseBody(size_t bytes) { buffered_body_bytes.fetch_sub(bytes); }
};

inline bool IsLoopback(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).is_loopback();
  }
  return address.is_loopback();
}

// The request without its body: what Screen judges, and the start of the
// request the Handler gets.
inline api::Request ToApiRequest(const http::request_header<>& message, bool from_loopback,
                                 const std::string& client_address) {
  api::Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [it, inserted] = request.headers.try_emplace(name, field.value());
    // Repeated headers combine into one comma-separated value (RFC 9110 5.3).
    if (!inserted) (it->second += ", ").append(field.value());
  }
  request.from_loopback = from_loopback;
  request.client_address = client_address;
  return request;
}

// Why a request head that Beast parsed is still refused, or nullopt. The
// connection closes after the answer: its framing cannot be trusted.
inline std::optional<std::string> RefusedHeader(const http::request_header<>& message) {
  // RFC 9112 3.2: an HTTP/1.1 request has exactly one Host; HTTP/1.0 may
  // have none.
  const size_t hosts = message.count(http::field::host);
  if (hosts > 1) return "more than one Host header";
  if (hosts == 0 && message.version() >= 11) return "an HTTP/1.1 request needs a Host header";
  // The only transfer coding we read is chunked, alone (RFC 9112 6.1: a
  // request whose final coding is not chunked has no knowable length; any
  // other coding is one we do not implement). A closed set of error codes
  // has no 501, and 400 is what 6.3 requires for the first case.
  if (message.count(http::field::transfer_encoding) > 0) {
    std::string codings;
    auto [it, end] = message.equal_range(http::field::transfer_encoding);
    for (; it != end; ++it) {
      if (!codings.empty()) codings += ",";
      codings.append(it->value());
    }
    std::string_view trimmed = codings;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) {
      trimmed.remove_prefix(1);
    }
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) {
      trimmed.remove_suffix(1);
    }
    if (!beast::iequals(trimmed, "chunked")) {
      return "unsupported Transfer-Encoding (only chunked is accepted)";
    }
  }
  return std::nullopt;
}

// One connection. Lives on its own strand; every member function below except
// PostResponse and PostShutdown runs on it.
class Session : public std::enable_shared_from_this<Session> {
 public:
  // `over_capacity`: the server already serves max_connections; this one is
  // answered 503 and closed.
  Session(tcp::socket&& socket, std::shared_ptr<Shared> shared, bool over_capacity)
      : stream_(std::move(socket)),
        executor_(stream_.get_executor()),
        shared_(std::move(shared)),
        over_capacity_(over_capacity) {
    beast::error_code ec;
    // Responses are single writes; Nagle would only delay back-to-back ones
    // (pipelining) by a delayed-ACK round.
    stream_.socket().set_option(tcp::no_delay(true), ec);
    tcp::endpoint peer = stream_.socket().remote_endpoint(ec);
    if (!ec) {
      client_address_ = peer.address().to_string();
      peer_ = FormatHostPort(client_address_, peer.port());
      from_loopback_ = IsLoopback(peer.address());
    }
  }

  ~Session() { ReleaseBody(); }

  void Start() {
    asio::dispatch(executor_, [self = shared_from_this()] {
      if (!self->over_capacity_) return self->ReadHeader();
      spdlog::warn("{} refused: already serving {} connections (--max-connections)", self->peer_,
                   self->options().max_connections);
      self->WriteError(503, "SERVICE_UNAVAILABLE",
                       "the server is serving its maximum number of connections; retry later");
    });
  }

  // Thread-safe. Delivers the handler's answer to request number `seq`.
  void PostResponse(uint64_t seq, api::Response response) {
    asio::post(executor_,
               [self = shared_from_this(), seq, response = std::move(response)]() mutable {
                 self->OnResponse(seq, std::move(response));
               });
  }

  // Closes the socket at once. REQUIRES: no I/O thread runs (after Stop
  // joined them): pending operations, which keep the session alive, will
  // never complete, and the client must still see the connection end.
  void CloseAfterIoStopped() {
    if (events_) events_->Close();
    beast::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

  // Thread-safe. Part of the server's graceful stop.
  void PostShutdown() {
    asio::post(executor_, [self = shared_from_this()] { self->OnShutdown(); });
  }

 private:
  // kStreaming: the answer is a live event stream (api/event_stream.h),
  // sent until it ends or the client goes; the connection then closes.
  enum class Phase { kReading, kHandling, kWriting, kLingering, kStreaming, kClosed };

  // The connection's socket, wherever it lives now (a WebSocket took the
  // stream over).
  tcp::socket& socket() { return ws_ ? beast::get_lowest_layer(*ws_).socket() : stream_.socket(); }

  const HttpServerOptions& options() const { return shared_->options; }

  void ReadHeader() {
    if (shared_->stopping) return Close();
    request_id_.clear();
    parser_.emplace();
    parser_->body_limit(options().max_body_bytes);
    parser_->header_limit(static_cast<uint32_t>(options().max_header_bytes));
    phase_ = Phase::kReading;
    // One deadline for the whole request, idle time included: a client that
    // trickles bytes (slowloris) cannot hold the connection past it.
    stream_.expires_after(options().read_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, size_t) {
    if (ec) return OnReadError(ec);
    const auto& message = parser_->get();
    request_id_ = AcceptOrMakeRequestId(message["X-Request-Id"]);
    if (std::optional<std::string> why = RefusedHeader(message)) {
      return WriteError(400, "BAD_REQUEST", *why);
    }
    if (std::optional<api::Response> refusal = ScreenHead(message)) {
      // Answered without reading the body; a body announced but not read
      // leaves the connection unusable, so it closes (after lingering).
      const bool no_body = parser_->is_done();
      SetRequestInfo(message);
      return Write(std::move(*refusal), no_body && message.keep_alive() && !shared_->stopping);
    }
    if (const boost::optional<uint64_t> length = parser_->content_length();
        length && !ReserveBody(static_cast<size_t>(*length))) {
      return RefuseBusy();
    }
    // curl and others wait (up to 1 s) for this before sending a large body.
    if (beast::iequals(message[http::field::expect], "100-continue") && !parser_->is_done() &&
        message.version() >= 11) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = shared_from_this()](beast::error_code ec, size_t) {
                          if (ec) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  // The Screen's answer to this head, if any. A Screen that throws (a bug)
  // lets the request through: the Handler makes the same checks.
  std::optional<api::Response> ScreenHead(const http::request_header<>& message) {
    if (!options().screen) return std::nullopt;
    ScopedRequestId scope(request_id_);
    try {
      return options().screen(ToApiRequest(message, from_loopback_, client_address_));
    } catch (const std::exception& e) {
      spdlog::error("screen threw on {}: {}", std::string(message.target()), e.what());
      return std::nullopt;
    }
  }

  // Counts `total` bytes of body for this request against the server-wide
  // cap (growing what was counted so far); false when the cap would pass.
  bool ReserveBody(size_t total) {
    if (total <= body_reserved_) return true;
    if (!shared_->TryReserveBody(total - body_reserved_)) return false;
    body_reserved_ = total;
    return true;
  }

  void ReleaseBody() {
    if (body_reserved_ == 0) return;
    shared_->ReleaseBody(body_reserved_);
    body_reserved_ = 0;
  }

  void RefuseBusy() {
    spdlog::warn(
        "{} refused: request bodies in flight would pass {} bytes "
        "(--max-buffered-body-bytes)",
        peer_, options().max_buffered_body_bytes);
    WriteError(503, "SERVICE_UNAVAILABLE",
               "the server is holding its maximum of request body bytes; retry later");
  }

  // Piece by piece, so that a body whose length was not announced (chunked)
  // is counted against the cap as it grows. (Beast's string body reserves
  // an announced Content-Length at once, which OnHeader counted.)
  void ReadBody() {
    if (parser_->is_done()) return OnBody();  // no body, or all of it already buffered
    http::async_read_some(stream_, buffer_, *parser_,
                          beast::bind_front_handler(&Session::OnBodyPart, shared_from_this()));
  }

  void OnBodyPart(beast::error_code ec, size_t) {
    if (ec) return OnReadError(ec);
    if (!ReserveBody(parser_->get().body().size())) return RefuseBusy();
    if (!parser_->is_done()) return ReadBody();
    OnBody();
  }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      return WriteError(
          413, "PAYLOAD_TOO_LARGE",
          "request body exceeds " + std::to_string(options().max_body_bytes) + " bytes");
    }
    if (ec == http::error::header_limit) {
      return WriteError(400, "BAD_REQUEST", "request headers too large");
    }
    // Garbage on the wire. A peer that hung up mid-message (partial_message)
    // or between messages (end_of_stream) gets no answer: nobody would read it.
    if (ec.category() == http::make_error_code(http::error::end_of_stream).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return WriteError(400, "BAD_REQUEST", "malformed HTTP request: " + ec.message());
    }
    if (ec == beast::error::timeout) spdlog::debug("{} read timeout", peer_);
    Close();
  }

  void SetRequestInfo(const http::request<http::string_body>& message) {
    keep_alive_ = message.keep_alive();
    head_ = message.method() == http::verb::head;
    version_ = message.version();
    log_method_ = std::string(message.method_string());
    log_target_ = std::string(message.target());
    started_ = Clock::now();
  }

  void OnBody() {
    http::request<http::string_body> message = parser_->release();
    SetRequestInfo(message);
    // Kept for the handshake, should the answer be a WebSocket stream.
    if (websocket::is_upgrade(message)) {
      upgrade_request_ = message;
    } else {
      upgrade_request_.reset();
    }
    api::Request request = ToApiRequest(message, from_loopback_, client_address_);
    request.body = std::move(message.body());
    request.request_id = request_id_;
    client_gone_ = std::stop_source();
    request.client_gone = client_gone_.get_token();
    phase_ = Phase::kHandling;
    // No timer while the handler works: a long-poll may take its full wait.
    stream_.expires_never();
    WatchForClose();
    uint64_t seq = ++seq_;
    ScopedRequestId scope(request_id_);
    try {
      shared_->handler(std::move(request), MakeResponder(seq));
    } catch (const std::exception& e) {
      // A bug in the handler; answer rather than leave the client hanging.
      // If it already answered, OnResponse drops this second answer.
      spdlog::error("handler threw on {} {}: {}", log_method_, log_target_, e.what());
      OnResponse(seq, ErrorResponse(500, "INTERNAL_ERROR", "internal error"));
    }
  }

  // While the handler works, a read on the socket notices a client that
  // hangs up (EOF or reset): the request's client_gone is requested, so a
  // parked long-poll stops waiting and takes no job for nobody. Bytes that
  // arrive instead (a pipelined request) stay in buffer_ for ReadHeader.
  void WatchForClose() {
    watching_ = true;
    stream_.async_read_some(
        buffer_.prepare(kWatchBytes),
        [self = shared_from_this()](beast::error_code ec, size_t n) { self->OnWatch(ec, n); });
  }

  void OnWatch(beast::error_code ec, size_t n) {
    watching_ = false;
    buffer_.commit(n);
    if (phase_ == Phase::kHandling) {
      if (!ec || ec == asio::error::operation_aborted) return;  // data: the client is there
      spdlog::debug("{} closed the connection while \"{} {}\" was handled", peer_, log_method_,
                    log_target_);
      client_gone_.request_stop();
      // A reset: nobody can read an answer. An orderly EOF may be a half-
      // close from a client still reading, so that one still gets its answer.
      if (ec != asio::error::eof) Close();
      return;
    }
    std::function<void()> next = std::exchange(after_watch_, nullptr);
    if (next && phase_ != Phase::kClosed) next();
  }

  api::Responder MakeResponder(uint64_t seq) {
    return [weak = weak_from_this(), shared = shared_, seq](api::Response response) {
      std::lock_guard lock(shared->mu);
      if (!shared->accepting_responses) return;
      if (auto self = weak.lock()) self->PostResponse(seq, std::move(response));
    };
  }

  void OnResponse(uint64_t seq, api::Response response) {
    if (phase_ != Phase::kHandling || seq != seq_) return;  // late or duplicate
    if (response.stream) return StartStream(std::move(response));
    Write(std::move(response), keep_alive_ && !shared_->stopping);
  }

  // Answers an unreadable request; the connection closes afterwards because
  // we cannot know where the next request would start.
  void WriteError(int status, std::string_view code, std::string message) {
    log_method_ = "-";
    log_target_ = "-";
    started_ = Clock::now();
    version_ = 11;
    head_ = false;
    Write(ErrorResponse(status, code, message), false);
  }

  void Write(api::Response response, bool keep_alive) {
    // The request's body is answered: whatever the handler still holds of it
    // is about to go.
    ReleaseBody();
    if (watching_) {
      beast::error_code ignored;
      stream_.socket().cancel(ignored);  // only the watch is pending now
    }
    response_.emplace();
    response_->version(version_);
    response_->result(static_cast<unsigned>(response.status));
    // 204 and 304 answers have no body, so no type (an empty header is noise).
    if (!response.content_type.empty()) {
      response_->set(http::field::content_type, response.content_type);
    }
    for (auto& [name, value] : response.headers) response_->set(name, value);
    if (!request_id_.empty()) response_->set("X-Request-Id", request_id_);
    response_->body() = std::move(response.body);
    response_->keep_alive(keep_alive);
    response_->prepare_payload();
    if (head_) {
      // The answer to GET without its body; Content-Length stays the GET's.
      const uint64_t length = response_->body().size();
      response_->body().clear();
      if (length > 0) response_->content_length(length);
    }
    phase_ = Phase::kWriting;
    stream_.expires_after(options().write_timeout);
    http::async_write(stream_, *response_,
                      beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, size_t bytes) {
    if (spdlog::should_log(spdlog::level::debug)) {
      ScopedRequestId scope(request_id_);
      auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started_).count();
      spdlog::debug("{} \"{} {}\" {} {}B {}us{}", peer_, log_method_, log_target_,
                    response_->result_int(), bytes, micros, ec ? " write failed" : "");
    }
    bool keep_alive = response_->keep_alive() && !client_gone_.stop_requested();
    response_.reset();
    if (ec) return Close();
    auto next = [this, keep_alive] {
      if (!keep_alive) return Linger();
      ReadHeader();  // the next (maybe already buffered) request
    };
    // One read at a time: a cancelled watch may not have completed yet. (Its
    // handler holds a reference to us, so `next` needs none of its own.)
    if (watching_) {
      after_watch_ = next;
      return;
    }
    next();
  }

  void Linger() {
    phase_ = Phase::kLingering;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTimeout);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->Close();  // EOF, timeout or reset
                              self->Drain();
                            });
  }

  void OnShutdown() {
    // Idle keep-alive connections close now; one that has begun sending a
    // request is served, with "Connection: close".
    if (phase_ == Phase::kReading && parser_ && !parser_->got_some()) stream_.cancel();
    if (phase_ == Phase::kStreaming) EndStream();
  }

  // --- live event streams (api/event_stream.h) ---------------------------
  // A handler answered with a stream: the connection becomes that stream.
  // SSE writes the head by hand (no Content-Length: the body ends when the
  // connection does); a WebSocket first completes the handshake with the
  // request kept in OnBody. Messages are written one write at a time; a
  // ping goes out every ping_interval. A client slower than the events is
  // dropped by the hub, not here: its stream ends, and if a write is then
  // still stuck the connection is closed at once.
  void StartStream(api::Response response) {
    ReleaseBody();
    events_ = std::move(response.stream);
    phase_ = Phase::kStreaming;
    if (events_->transport() == api::EventStream::Transport::kWebSocket && !upgrade_request_) {
      events_->Close();
      events_.reset();
      phase_ = Phase::kHandling;
      return Write(ErrorResponse(400, "BAD_REQUEST", "expected a WebSocket upgrade"), false);
    }
    auto begin = [this, response = std::move(response)]() mutable {
      BeginStream(std::move(response));
    };
    if (watching_) {
      beast::error_code ignored;
      stream_.socket().cancel(ignored);  // only the watch is pending now
      after_watch_ = std::move(begin);
      return;
    }
    begin();
  }

  void BeginStream(api::Response response) {
    std::weak_ptr<Session> weak = weak_from_this();
    auto wake = [weak, executor = executor_] {
      asio::post(executor, [weak] {
        if (auto self = weak.lock()) self->PumpStream();
      });
    };
    if (events_->transport() == api::EventStream::Transport::kSse) {
      std::string head = "HTTP/1.1 " + std::to_string(response.status) + " OK\r\n";
      head += "Content-Type: text/event-stream\r\nX-Accel-Buffering: no\r\nConnection: close\r\n";
      for (const auto& [name, value] : response.headers) head += name + ": " + value + "\r\n";
      if (!request_id_.empty()) head += "X-Request-Id: " + request_id_ + "\r\n";
      head += "\r\n: connected\n\n";
      outgoing_.push_back(std::move(head));
      events_->Start(std::move(wake));
      WatchStreamForClose();
      SchedulePing();
      return PumpStream();
    }
    stream_.expires_never();  // the WebSocket keeps its own timeouts
    ws_.emplace(std::move(stream_));
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = options().write_timeout;
    timeouts.idle_timeout = std::max<std::chrono::steady_clock::duration>(
        std::chrono::seconds(30), 2 * events_->ping_interval());
    timeouts.keep_alive_pings = true;
    ws_->set_option(timeouts);
    ws_->async_accept(*upgrade_request_, [self = shared_from_this(),
                                          wake = std::move(wake)](beast::error_code ec) mutable {
      self->upgrade_request_.reset();
      if (ec) return self->Close();
      self->events_->Start(std::move(wake));
      self->ReadWebSocket();
      self->SchedulePing();
      self->PumpStream();
    });
  }

  // SSE: the client sends nothing more; a read notices it hang up.
  void WatchStreamForClose() {
    stream_.async_read_some(asio::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (self->phase_ != Phase::kStreaming) return;
                              if (ec) return self->Close();
                              self->WatchStreamForClose();
                            });
  }

  void ReadWebSocket() {
    ws_->async_read(ws_buffer_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (self->phase_ != Phase::kStreaming) return;
      if (ec) return self->Close();  // closed by the client, or gone
      const std::string text = beast::buffers_to_string(self->ws_buffer_.data());
      self->ws_buffer_.consume(self->ws_buffer_.size());
      for (std::string& reply : self->events_->OnClientMessage(text)) {
        self->outgoing_.push_back(std::move(reply));
      }
      self->PumpStream();
      self->ReadWebSocket();
    });
  }

  void SchedulePing() {
    ping_timer_.expires_after(events_->ping_interval());
    ping_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->phase_ != Phase::kStreaming) return;
      if (self->outgoing_.empty() && !self->stream_writing_) {
        self->outgoing_.push_back(self->events_->Ping());
        self->PumpStream();
      }
      self->SchedulePing();
    });
  }

  // Sends what is waiting, then what the stream has; closes once it ended.
  void PumpStream() {
    if (phase_ != Phase::kStreaming || !events_) return;
    if (!stream_ending_) {
      api::EventStream::Frames frames = events_->Take();
      for (std::string& m : frames.messages) outgoing_.push_back(std::move(m));
      if (frames.ended) {
        stream_ending_ = true;
        // Still writing: the client is not reading; it gets nothing more.
        if (stream_writing_) return Close();
      }
    }
    if (stream_writing_) return;
    if (outgoing_.empty()) {
      if (stream_ending_) EndStreamNow();
      return;
    }
    stream_writing_ = true;
    if (ws_) {
      writing_buffer_ = std::move(outgoing_.front());
      outgoing_.pop_front();
      ws_->text(true);
      ws_->async_write(
          asio::buffer(writing_buffer_),
          [self = shared_from_this()](beast::error_code ec, size_t) { self->OnStreamWrite(ec); });
      return;
    }
    writing_buffer_.clear();
    for (std::string& m : outgoing_) writing_buffer_ += m;
    outgoing_.clear();
    stream_.expires_after(options().write_timeout);
    asio::async_write(
        stream_, asio::buffer(writing_buffer_),
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnStreamWrite(ec); });
  }

  void OnStreamWrite(beast::error_code ec) {
    stream_writing_ = false;
    if (phase_ != Phase::kStreaming) return;
    if (ec) return Close();
    if (!ws_) stream_.expires_never();  // the close watch waits without a deadline
    PumpStream();
  }

  // Ends the stream from this side (shutdown): what is queued, then close.
  void EndStream() {
    if (stream_ending_) return;
    stream_ending_ = true;
    if (stream_writing_) return Close();
    PumpStream();
  }

  void EndStreamNow() {
    if (!ws_) return Close();
    ws_->async_close(websocket::close_reason(websocket::close_code::going_away),
                     [self = shared_from_this()](beast::error_code) { self->Close(); });
  }

  void Close() {
    if (phase_ == Phase::kClosed) return;
    phase_ = Phase::kClosed;
    ReleaseBody();
    if (events_) events_->Close();
    ping_timer_.cancel();
    beast::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    if (ws_) {
      beast::get_lowest_layer(*ws_).close();
    } else {
      stream_.close();
    }
    std::lock_guard lock(shared_->mu);
    if (!over_capacity_) --shared_->served_connections;
    shared_->sessions.erase(this);  // not the last reference: our caller holds one
    if (shared_->sessions.empty()) shared_->sessions_empty.notify_all();
  }

  beast::tcp_stream stream_;              // moved into ws_ by a WebSocket stream
  const asio::any_io_executor executor_;  // the connection's strand
  std::shared_ptr<Shared> shared_;
  std::string peer_ = "?";
  std::string client_address_;
  bool from_loopback_ = false;
  const bool over_capacity_;
  size_t body_reserved_ = 0;           // bytes of this request's body counted in Shared
  std::stop_source client_gone_;       // of the request being handled
  bool watching_ = false;              // WatchForClose's read is pending
  std::function<void()> after_watch_;  // what OnWrite left for the watch's end

  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  std::array<char, 4096> drain_;
  Phase phase_ = Phase::kReading;
  uint64_t seq_ = 0;  // number of the request being handled
  bool keep_alive_ = false;
  bool head_ = false;  // the request being answered is a HEAD
  unsigned version_ = 11;
  std::string log_method_, log_target_;
  // Of the request being handled or answered (server/request_id.h); empty
  // before its head is read.
  std::string request_id_;
  Clock::time_point started_;

  // A live event stream (StartStream).
  std::optional<http::request<http::string_body>> upgrade_request_;
  std::shared_ptr<api::EventStream> events_;
  std::optional<websocket::stream<beast::tcp_stream>> ws_;
  beast::flat_buffer ws_buffer_;
  asio::steady_timer ping_timer_{executor_};
  std::deque<std::string> outgoing_;  // messages not yet written
  std::string writing_buffer_;        // SSE: what the write in flight sends
  bool stream_writing_ = false;
  bool stream_ending_ = false;  // the stream ended: close once outgoing_ is sent
};

}  // namespace redrive::server::internal
