#include "api/webhook_decoding.h"

#include <algorithm>
#include <boost/url/parse.hpp>

#include "api/api.h"
#include "engine/webhooks/target_address.h"
#include "wire/field_reader.h"

namespace redrive::api {
namespace {

constexpr size_t kMaxNameBytes = 100;
constexpr size_t kMaxSecretBytes = 256;

Result<std::optional<std::vector<std::string>>> Events(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* array, r.Array("events"));
  if (array == nullptr) return std::optional<std::vector<std::string>>();
  if (array->empty()) return Status::Validation("events", "events must not be empty");
  std::vector<std::string> events;
  for (const boost::json::value& v : *array) {
    if (!v.is_string() || !IsWebhookEvent(v.get_string())) {
      return Status::Validation("events", "events must be names among " + WebhookEventNames());
    }
    std::string name(v.get_string());
    if (std::find(events.begin(), events.end(), name) == events.end()) events.push_back(name);
  }
  return std::optional<std::vector<std::string>>(std::move(events));
}

Result<std::optional<std::string>> Url(const wire::FieldReader& r, const WebhookUrlRules& rules) {
  REDRIVE_ASSIGN_OR_RETURN(auto url, r.String("url", 1, kMaxWebhookUrlBytes));
  if (url) REDRIVE_RETURN_IF_ERROR(CheckWebhookUrl(*url, rules));
  return url;
}

Result<std::optional<WebhookFormat>> Format(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(auto text, r.String("format", 1, 16));
  if (!text) return std::optional<WebhookFormat>();
  auto format = ParseWebhookFormat(*text);
  if (!format) return Status::Validation("format", "format must be one of " + WebhookFormatNames());
  return std::optional<WebhookFormat>(*format);
}

Result<std::optional<SignatureFormat>> SignatureFormatField(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(auto text, r.String("signature_format", 1, 16));
  if (!text) return std::optional<SignatureFormat>();
  auto format = ParseSignatureFormat(*text);
  if (!format) {
    return Status::Validation("signature_format",
                              "signature_format must be \"redrive\" or \"spooled\"");
  }
  return std::optional<SignatureFormat>(*format);
}

}  // namespace

WebhookUrlRules WebhookUrlRulesOf(const ApiOptions& options) {
  return {.allow_private_targets = options.webhook_allow_private_targets};
}

Status CheckWebhookUrl(const std::string& url, const WebhookUrlRules& rules,
                       const std::string& field) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u || (u->scheme() != "http" && u->scheme() != "https") || u->host().empty()) {
    return Status::Validation(field, field + " must be an absolute http:// or https:// URL");
  }
  if (rules.allow_private_targets) return Status::Ok();
  // host_address(): percent-decoded, IPv6 without brackets, as the sender
  // resolves it.
  const std::optional<engine::AddressClass> cls = engine::ClassifyLiteralHost(u->host_address());
  if (cls && *cls != engine::AddressClass::kGlobal) {
    return Status::Validation(field, field + "'s host is a " + engine::AddressClassName(*cls) +
                                         " address; webhooks may only target global addresses "
                                         "unless the server allows private targets");
  }
  return Status::Ok();
}

Result<engine::CreateWebhookParams> DecodeCreateWebhook(const boost::json::object& body,
                                                        const WebhookUrlRules& rules) {
  wire::FieldReader r(body);
  engine::CreateWebhookParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.name, r.RequiredString("name", 1, kMaxNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(auto url, Url(r, rules));
  if (!url) return wire::MissingField("url");
  p.url = std::move(*url);
  REDRIVE_ASSIGN_OR_RETURN(auto events, Events(r));
  if (!events) return wire::MissingField("events");
  p.events = std::move(*events);
  REDRIVE_ASSIGN_OR_RETURN(p.secret, r.String("secret", 1, kMaxSecretBytes));
  REDRIVE_ASSIGN_OR_RETURN(auto enabled, r.Bool("enabled"));
  p.enabled = enabled.value_or(true);
  REDRIVE_ASSIGN_OR_RETURN(auto format, Format(r));
  p.format = format.value_or(WebhookFormat::kJson);
  REDRIVE_ASSIGN_OR_RETURN(auto signature, SignatureFormatField(r));
  p.signature_format = signature.value_or(SignatureFormat::kRedrive);
  return p;
}

Result<engine::WebhookPatch> DecodeWebhookPatch(const boost::json::object& body,
                                                const WebhookUrlRules& rules) {
  wire::FieldReader r(body);
  engine::WebhookPatch p;
  REDRIVE_ASSIGN_OR_RETURN(p.name, r.String("name", 1, kMaxNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(p.url, Url(r, rules));
  REDRIVE_ASSIGN_OR_RETURN(p.events, Events(r));
  REDRIVE_ASSIGN_OR_RETURN(p.secret, r.String("secret", 1, kMaxSecretBytes));
  REDRIVE_ASSIGN_OR_RETURN(p.enabled, r.Bool("enabled"));
  REDRIVE_ASSIGN_OR_RETURN(p.format, Format(r));
  REDRIVE_ASSIGN_OR_RETURN(p.signature_format, SignatureFormatField(r));
  return p;
}

}  // namespace redrive::api
