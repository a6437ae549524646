// Outgoing webhooks: list, create, read, update, delete, deliveries, test.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value_from.hpp>

#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "api/webhook_decoding.h"
#include "api/webhook_views.h"

namespace redrive::api {
namespace {

using boost::json::value_from;  // an unset std::optional becomes null

// Encodes one webhook as `role` may see it (webhook_views.h).
auto WebhookEncoder(Role role) {
  return [role](Webhook& w) { return JsonResponse(200, WebhookJsonFor(w, role)); };
}

Result<engine::ListDeliveriesParams> DecodeListDeliveries(const Call& call) {
  engine::ListDeliveriesParams f;
  f.webhook_id = call.Param("id");
  if (auto status = QueryString(call.query, "status")) {
    f.status = ParseDeliveryStatus(*status);
    if (!f.status) {
      return Status::Validation("status", "status must be pending, delivered or failed");
    }
  }
  REDRIVE_ASSIGN_OR_RETURN(f.limit, QueryLimit(call.query, "limit", 100, 50));
  REDRIVE_ASSIGN_OR_RETURN(auto offset, QueryInt(call.query, "offset", 0, 1'000'000'000));
  f.offset = static_cast<int>(offset.value_or(0));
  return f;
}

}  // namespace

void HandleListWebhooks(Call& call) {
  call.engine.ListWebhooks(
      Answer<std::vector<Webhook>>(call.respond, [role = call.role](std::vector<Webhook>& ws) {
        boost::json::array out;
        for (const Webhook& w : ws) out.push_back(WebhookJsonFor(w, role));
        return JsonResponse(200, out);
      }));
}

void HandleCreateWebhook(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::CreateWebhookParams> p =
      DecodeCreateWebhook(*body, WebhookUrlRulesOf(call.options));
  if (!p.ok()) return call.Fail(p.status());
  call.engine.CreateWebhook(std::move(*p),
                            Answer<Webhook>(call.respond, [role = call.role](Webhook& w) {
                              // The only answer that ever shows the secret.
                              boost::json::object out = WebhookJsonFor(w, role);
                              out["secret"] = w.secret;
                              return JsonResponse(201, out);
                            }));
}

void HandleGetWebhook(Call& call) {
  call.engine.GetWebhook(call.Param("id"),
                         Answer<Webhook>(call.respond, WebhookEncoder(call.role)));
}

void HandleUpdateWebhook(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::WebhookPatch> patch = DecodeWebhookPatch(*body, WebhookUrlRulesOf(call.options));
  if (!patch.ok()) return call.Fail(patch.status());
  call.engine.UpdateWebhook(call.Param("id"), std::move(*patch),
                            Answer<Webhook>(call.respond, WebhookEncoder(call.role)));
}

void HandleDeleteWebhook(Call& call) {
  call.engine.DeleteWebhook(call.Param("id"), AnswerNoContent(call.respond));
}

void HandleListDeliveries(Call& call) {
  Result<engine::ListDeliveriesParams> f = DecodeListDeliveries(call);
  if (!f.ok()) return call.Fail(f.status());
  call.engine.ListDeliveries(
      std::move(*f), Answer<std::vector<WebhookDelivery>>(
                         call.respond, [role = call.role](std::vector<WebhookDelivery>& ds) {
                           boost::json::array out;
                           for (const WebhookDelivery& d : ds)
                             out.push_back(DeliveryJsonFor(d, role));
                           return JsonResponse(200, out);
                         }));
}

void HandleTestWebhook(Call& call) {
  call.engine.TestWebhook(
      call.Param("id"), Answer<engine::WebhookTestResult>(call.respond, [](auto& r) {
        const AttemptResult& a = r.attempt;
        // response_time_ms is Spooled's name for duration_ms (its SDK's
        // TestWebhookResponse reads it).
        return JsonResponse(200, boost::json::object{{"success", a.success},
                                                     {"delivery_id", r.delivery_id},
                                                     {"duration_ms", a.duration.count()},
                                                     {"response_time_ms", a.duration.count()},
                                                     {"status_code", value_from(a.status_code)},
                                                     {"error", value_from(a.error)}});
      }));
}

}  // namespace redrive::api
