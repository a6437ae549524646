// Client: the token exchange (/api/v1/auth).
#include <boost/json/object.hpp>

#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "wire/json_read.h"

namespace redrive::sdk {
namespace {

Result<TokenPair> TokenPairFromJson(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  if (o == nullptr) return Status::Internal("malformed token answer: not an object");
  TokenPair t;
  t.access_token = wire::ReadStringOr(*o, "access_token");
  t.refresh_token = wire::ReadStringOr(*o, "refresh_token");
  t.token_type = wire::ReadStringOr(*o, "token_type", "Bearer");
  t.expires_in = std::chrono::seconds(wire::ReadIntOr(*o, "expires_in", 0));
  t.refresh_expires_in = std::chrono::seconds(wire::ReadIntOr(*o, "refresh_expires_in", 0));
  if (t.access_token.empty()) return Status::Internal("malformed token answer: no access_token");
  return t;
}

Result<TokenValidation> ValidationFromJson(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  if (o == nullptr) return Status::Internal("malformed validation: not an object");
  TokenValidation out;
  out.valid = wire::ReadBoolOr(*o, "valid", false);
  if (const boost::json::value* claims = o->if_contains("claims"); claims && claims->is_object()) {
    out.claims = claims->get_object();
  }
  out.error = wire::ReadString(*o, "message");
  if (!out.error) out.error = wire::ReadString(*o, "error");
  return out;
}

Result<Identity> IdentityFromJson(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  if (o == nullptr) return Status::Internal("malformed identity: not an object");
  Identity id;
  id.api_key_id = wire::ReadStringOr(*o, "api_key_id");
  id.name = wire::ReadStringOr(*o, "name");
  id.role = wire::ReadStringOr(*o, "role");
  id.credential = wire::ReadStringOr(*o, "credential");
  if (const boost::json::value* queues = o->if_contains("queues"); queues && queues->is_array()) {
    for (const boost::json::value& q : queues->get_array()) {
      if (q.is_string()) id.queues.emplace_back(q.get_string());
    }
  }
  id.issued_at = wire::ReadTime(*o, "issued_at");
  id.expires_at = wire::ReadTime(*o, "expires_at");
  return id;
}

}  // namespace

Result<TokenPair> Client::Login(const std::string& api_key) {
  return impl_->Call<TokenPair>("POST", "/auth/login",
                                boost::json::value(boost::json::object{{"api_key", api_key}}),
                                TokenPairFromJson);
}

Result<TokenPair> Client::RefreshTokens(const std::string& refresh_token) {
  return impl_->Call<TokenPair>(
      "POST", "/auth/refresh",
      boost::json::value(boost::json::object{{"refresh_token", refresh_token}}), TokenPairFromJson);
}

Result<TokenValidation> Client::ValidateToken(const std::string& access_token) {
  return impl_->Call<TokenValidation>(
      "POST", "/auth/validate", boost::json::value(boost::json::object{{"token", access_token}}),
      ValidationFromJson);
}

Result<Identity> Client::Me() {
  return impl_->Call<Identity>("GET", "/auth/me", std::nullopt, IdentityFromJson);
}

Status Client::Logout(const std::optional<std::string>& refresh_token) {
  boost::json::object body;
  if (refresh_token) body["refresh_token"] = *refresh_token;
  return impl_->Json("POST", "/auth/logout", boost::json::value(std::move(body))).status();
}

}  // namespace redrive::sdk
