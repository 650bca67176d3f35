import CallPush
import Foundation
import HTTPServer
import PushEngine
import RegistryCore

/// `POST /v1/webhooks/dialstack`: DialStack's `call.mobile_push_wakeup` becomes a `call.ring`
/// through the same dispatch as `POST /v1/call-events`, its event id the call event's id, so a
/// redelivery never rings twice. No API key: the `X-DialStack-Signature` HMAC is the
/// authentication, and a request that fails it is 401 before its body is even parsed.
extension APIContext {
    /// DialStack gives up on a delivery after a few seconds and retries it; answering within
    /// this keeps a slow push service from turning one call into retried deliveries.
    static let webhookAnswerBudget = Duration.milliseconds(2500)

    func addDialStackWebhookRoute(to router: inout Router, signature: DialStackSignature?) {
        router.add(.POST, "/v1/webhooks/dialstack", body: .json) { request in
            var logger = self.logger
            logger[metadataKey: "request_id"] = "\(request.requestID)"
            do {
                return try await dialStackWebhook(request, signature: signature)
            } catch {
                return .problem(ProblemMapping.problem(for: error, logger: logger))
            }
        }
    }

    private func dialStackWebhook(_ request: HTTPRequest, signature: DialStackSignature?) async throws -> HTTPResponse {
        guard let signature else {
            CallEventMetrics.webhook(.notConfigured)
            throw APIFailure.webhookNotConfigured
        }
        let body = Array(request.body.readableBytesView)
        do {
            try signature.verify(
                header: request.headers.first(name: DialStackSignature.headerName), body: body, now: Date())
        } catch {
            CallEventMetrics.webhook(.init(error))
            // The reason only: never the header, the body or a secret.
            logger.warning(
                "a DialStack webhook was refused",
                metadata: ["request_id": "\(request.requestID)", "reason": "\(error)"])
            throw APIFailure.webhookSignatureRefused
        }
        let parsed: DialStackWebhook.Event
        do {
            parsed = try DialStackWebhook.parse(try RequestReading.json(request), arrivedAt: Date())
        } catch {
            CallEventMetrics.webhook(.invalidBody)
            throw error
        }
        switch parsed {
        case .ignored(let type):
            CallEventMetrics.webhook(.ignored)
            return .json(IgnoredWebhookBody(type: type, ignored: true))
        case .wakeup(let event, let dropped):
            for field in dropped {
                // The field and why, never its value: a number is personal data.
                logger.notice(
                    "a DialStack webhook field was dropped",
                    metadata: [
                        "request_id": "\(request.requestID)", "field": "\(field.field)", "reason": "\(field.message)",
                    ])
                CallEventMetrics.webhookFieldDropped(field.field)
            }
            let answer = try await engine.wake(event, budget: Self.webhookAnswerBudget)
            CallEventMetrics.webhook(answer.duplicate == true ? .duplicate : .accepted)
            return .json(answer)
        }
    }
}

/// The answer to a DialStack event type other than the wake-up: acknowledged, nothing done.
struct IgnoredWebhookBody: Encodable {
    let type: String
    let ignored: Bool
}
