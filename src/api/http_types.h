// The HTTP layer's own request/response types: plain data, no Beast, so the
// API can be tested without sockets and this header stays cheap to include.
// server/ translates Beast messages to and from these.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace redrive::api {

class EventStream;  // api/event_stream.h

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, e.g. "/api/v1/jobs?limit=5"
  // Header names lower-cased.
  std::map<std::string, std::string> headers;
  std::string body;
  bool from_loopback = true;   // the peer address is 127.0.0.0/8 or ::1
  std::string client_address;  // the peer's IP address, without port ("" in tests)
  // The request's id (server/request_id.h: the client's X-Request-Id when
  // sane, else made up), kept in the audit log; "" in tests that set none.
  std::string request_id;
  // Requested by the server when the client disconnects while the request is
  // being handled (a long-poll claim then stops waiting and takes no job).
  std::stop_token client_gone;

  const std::string* header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? nullptr : &it->second;
  }
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Set: the answer is a live event stream (event_stream.h) the server
  // drives after the status and headers; `body` is then unused.
  std::shared_ptr<EventStream> stream;
};

using Responder = std::function<void(Response)>;

}  // namespace redrive::api
