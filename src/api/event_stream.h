// A response that does not end: a live event stream (SSE or WebSocket) that
// a handler answers with (Response::stream) and the server then drives on
// the connection. The server knows only this interface: it sends what
// Take() gives whenever it is woken, a Ping() when the stream has been quiet
// for ping_interval(), and hands a WebSocket client's messages to
// OnClientMessage(). No Beast here, so this header stays cheap.
//
// Thread-safety: Take, Ping, OnClientMessage and Close are called on the
// connection's strand, one at a time; the wake callback is called from any
// thread.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace redrive::api {

class EventStream {
 public:
  enum class Transport { kSse, kWebSocket };

  // What to send now: whole messages (SSE: complete "data: ...\n\n" frames;
  // WebSocket: one text message each). `ended`: after these, the stream is
  // over (its last message says why) and the connection closes.
  struct Frames {
    std::vector<std::string> messages;
    bool ended = false;
  };

  virtual ~EventStream() = default;

  virtual Transport transport() const = 0;
  virtual std::chrono::milliseconds ping_interval() const = 0;

  // Starts the stream: `wake` is called (from any thread; it must only post
  // work) whenever Take may have something new. Called once.
  virtual void Start(std::function<void()> wake) = 0;
  virtual Frames Take() = 0;
  // The keep-alive message.
  virtual std::string Ping() = 0;
  // A WebSocket client's text message; returns the replies to send.
  virtual std::vector<std::string> OnClientMessage(std::string_view text) = 0;
  // The connection is gone: frees the stream's place. Idempotent.
  virtual void Close() = 0;
};

}  // namespace redrive::api
