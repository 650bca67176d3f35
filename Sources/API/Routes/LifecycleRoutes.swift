import HTTPServer
import PushEngine
import RegistryCore
import Store

/// How tokens enter from SIP registrars and leave on the push services' word.
extension APIContext {
    func addLifecycleRoutes(to router: inout Router) {
        // A SIP REGISTER's Contact (RFC 8599): its remote and PushKit tokens, all or none.
        router.add(
            .POST, "/v1/users/{user_id}/devices/sip", body: .json,
            handler: guarded(.devicesWrite) { request, _ in
                let user = try RequestReading.userID(request)
                _ = try RequestReading.query(request, allowed: [])
                let sip = try SIPRegistration.parse(try RequestReading.json(request))
                let provider = try await provider(for: sip.contact)
                let registrations = try sip.contact.tokens.map { token in
                    try DeviceRegistration(
                        userID: user, provider: provider.name, token: token, environment: sip.contact.environment,
                        deviceID: sip.deviceID)
                }
                let outcomes: [RegistrationOutcome]
                do {
                    outcomes = try await devices.registerAll(registrations)
                } catch RegistryError.unknownProvider(_, let name) {
                    // Deleted since it was matched above; nothing was registered.
                    throw RegistryError.unknownProvider(field: "contact", name: name)
                }
                outcomes.forEach(events.registered)
                let created = outcomes.contains { $0.result == .created }
                return ConsistencyToken.answer(
                    .json(encoded: DeviceJSON.registrationsBody(outcomes), status: created ? .created : .ok),
                    after: devices)
            })

        router.add(
            .POST, "/v1/feedback", body: .json,
            handler: guarded(.devicesWrite) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let report = try FeedbackReport.parse(try RequestReading.json(request))
                let service: PushService
                do {
                    service = try await providers.provider(named: report.provider).provider.service
                } catch RegistryError.notFound {
                    throw RegistryError.unknownProvider(field: "provider", name: report.provider.value)
                }
                let action = try await devices.applyFeedback(
                    provider: report.provider, token: report.token,
                    policy: FeedbackClassifier.action(for: report.reason, service: service),
                    reason: report.reason, reportedAt: report.timestamp)
                events.invalidated(action, provider: report.provider)
                return .json(FeedbackBody(action: action.rawValue))
            })
    }

    /// The one configured provider a contact asks for; 422 on `contact` when none or several fit.
    private func provider(for contact: PushContact) async throws -> Provider {
        let matching = try await providers.all().map(\.provider).filter(contact.matches)
        guard matching.count == 1 else {
            let wanted =
                contact.service == .apns
                ? "an apns provider with topic \(contact.bundleID ?? "?")"
                : "an fcm provider" + (contact.projectID.map { " with project_id \($0)" } ?? "")
            let message =
                matching.isEmpty
                ? "names no configured provider: wanted \(wanted)" : "matches several providers: \(wanted)"
            throw RegistryError.validation([ValidationError(field: "contact", message: message)])
        }
        return matching[0]
    }
}
