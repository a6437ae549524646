// Client: construction, the JSON round trip, and the service routes. The
// typed routes are in client_jobs.cc, client_leases.cc and client_admin.cc.
#include "redrive/client.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "sdk/client_impl.h"
#include "sdk/server_url.h"
#include "wire/error_decode.h"
#include "wire/json_read.h"

namespace redrive::sdk {

Client::Impl::Impl(ClientOptions options) : options_(std::move(options)) {
  auto url = ParseServerUrl(options_.server_url);
  if (!url.ok()) {
    url_status_ = url.status();
    return;
  }
  transport_ = std::make_unique<Transport>(std::move(url).value(), options_);
}

Result<boost::json::value> Client::Impl::Json(std::string_view method, const std::string& path,
                                              const std::optional<boost::json::value>& body,
                                              std::chrono::milliseconds extra_timeout,
                                              std::stop_token stop) {
  if (!transport_) return url_status_;
  std::string target = path.rfind("/health", 0) == 0 ? path : "/api/v1" + path;
  std::optional<std::string> text;
  if (body) text = boost::json::serialize(*body);
  auto response = transport_->Send(method, target, text, extra_timeout, std::move(stop));
  if (!response.ok()) return response.status();
  boost::json::value parsed;
  if (!response->body.empty()) {
    boost::system::error_code ec;
    parsed = boost::json::parse(response->body, ec);
    if (ec && response->status / 100 == 2) {
      return Status::Internal("the server's answer is not JSON: " + ec.message());
    }
    if (ec) parsed = nullptr;  // an error page from a proxy: the status decides
  }
  if (response->status / 100 != 2) return wire::ErrorFromJson(parsed, response->status);
  return parsed;
}

void Client::Impl::CancelInFlight() {
  if (transport_) transport_->CancelInFlight();
}

int64_t Client::Impl::connections_opened() const {
  return transport_ ? transport_->connections_opened() : 0;
}

std::string PathWithId(std::string_view prefix, std::string_view id, std::string_view suffix) {
  std::string out(prefix);
  out += UrlEncode(id);
  out += suffix;
  return out;
}

Query& Query::Add(std::string_view key, const std::optional<std::string>& value) {
  if (!value) return *this;
  text_ += text_.empty() ? '?' : '&';
  text_.append(key).append("=").append(UrlEncode(*value));
  return *this;
}

Query& Query::Add(std::string_view key, const std::optional<int>& value) {
  if (!value) return *this;
  return Add(key, std::optional<std::string>(std::to_string(*value)));
}

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;

const ClientOptions& Client::options() const { return impl_->options(); }

Result<boost::json::value> Client::Call(std::string_view method, const std::string& path,
                                        const std::optional<boost::json::value>& body) {
  return impl_->Json(method, path, body);
}

void Client::CancelInFlight() { impl_->CancelInFlight(); }

int64_t Client::connections_opened() const { return impl_->connections_opened(); }

Result<Health> Client::GetHealth() {
  auto v = impl_->Json("GET", "/health");
  if (!v.ok()) return v.status();
  const auto* o = v->if_object();
  if (!o) return Status::Internal("malformed /health answer");
  return Health{wire::ReadStringOr(*o, "status"), wire::ReadStringOr(*o, "version")};
}

Status Client::Ready() {
  auto v = impl_->Json("GET", "/health/ready");
  return v.ok() ? Status::Ok() : v.status();
}

}  // namespace redrive::sdk
