// Client's private state and the one helper every typed call goes through:
// send JSON, get JSON back or the server's error as a Status.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "redrive/client.h"
#include "sdk/response_decoding.h"
#include "sdk/transport.h"

namespace redrive::sdk {

class Client::Impl {
 public:
  explicit Impl(ClientOptions options);

  const ClientOptions& options() const { return options_; }

  // `path` is under /api/v1 unless it starts with "/health". A 2xx answer
  // gives its parsed body (null when empty); any other the server's error.
  // `extra_timeout` and `stop` as in Transport::Send.
  Result<boost::json::value> Json(std::string_view method, const std::string& path,
                                  const std::optional<boost::json::value>& body = std::nullopt,
                                  std::chrono::milliseconds extra_timeout = {},
                                  std::stop_token stop = {});

  // Json() then `decode`.
  template <typename T>
  Result<T> Call(std::string_view method, const std::string& path,
                 const std::optional<boost::json::value>& body,
                 Result<T> (*decode)(const boost::json::value&)) {
    auto v = Json(method, path, body);
    if (!v.ok()) return v.status();
    return decode(*v);
  }
  template <typename T>
  Result<std::vector<T>> CallList(const std::string& path,
                                  Result<T> (*decode)(const boost::json::value&)) {
    auto v = Json("GET", path);
    if (!v.ok()) return v.status();
    return ArrayFromJson<T>(*v, decode);
  }

  void CancelInFlight();
  int64_t connections_opened() const;

  // The transport, or the bad server_url's error.
  Result<Transport*> transport() {
    if (!transport_) return url_status_;
    return transport_.get();
  }

 private:
  ClientOptions options_;
  Status url_status_;                     // a bad server_url fails every call
  std::unique_ptr<Transport> transport_;  // null when the URL is bad
};

// "/jobs/" + the id, percent-encoded: ids come from users too (CLI arguments).
std::string PathWithId(std::string_view prefix, std::string_view id, std::string_view suffix = {});

// Builds "?a=1&b=2" from the parameters that are set.
class Query {
 public:
  Query& Add(std::string_view key, const std::optional<std::string>& value);
  Query& Add(std::string_view key, const std::optional<int>& value);
  std::string str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace redrive::sdk
