/// Reads the push routing out of a SIP Contact as Flexisip/Linphone clients send it (RFC 8599
/// push parameters, plus the Flexisip APNs extensions).
///
/// - `pn-provider`: `apns` (production), `apns.dev` (sandbox) or `fcm`; case-insensitive.
/// - `pn-prid`: APNs — `<token>`, `<token>:remote`, `<token>:voip`, or
///   `<RemoteToken>:remote&<PushKitToken>:voip`; FCM — the registration token (FCM tokens hold
///   `:`, so they are never split).
/// - `pn-param`: APNs — `<TeamID>.<BundleID>` with an optional `.remote`, `.voip` or
///   `.remote&voip` suffix (required: it names the app); FCM — the project or sender id
///   (optional; it picks among several FCM providers).
///
/// A bare APNs token takes its type from the `pn-param` suffix (`.voip` → voip; none or
/// `.remote` → apns). Labelled tokens speak for themselves; when `pn-param` also has a suffix, the
/// two must agree. Values are percent-decoded after the parameters are split, so `%3A`/`%26` are
/// read as `:`/`&`. Only `pn-*` parameters inside the URI count; header parameters are read for
/// `+sip.instance` (see `PushContact.deviceID`).
public enum SIPContact {
    /// The longest contact taken, in code points; a real one is a few hundred.
    public static let maxLength = 16384

    /// Every error has field `contact` and names the parameter at fault.
    public static func parse(_ contact: String) throws(ValidationErrors) -> PushContact {
        // What the contract says of `contact`; a header value never holds them (RFC 3261 §7.3.1).
        guard TextRules.length(contact) <= maxLength else {
            throw failure("must be at most \(maxLength) characters long")
        }
        guard !TextRules.containsControlCharacter(contact) else {
            throw failure("must not contain control characters (a Contact is one header line)")
        }
        let address: SIPAddress
        do { address = try SIPAddress(contact) } catch { throw failure(error.message) }

        var problems: [String] = []
        var pushParameters: [String: String] = [:]
        for parameter in address.uriParameters where ["pn-provider", "pn-prid", "pn-param"].contains(parameter.name) {
            if pushParameters[parameter.name] != nil {
                problems.append("\(parameter.name) appears more than once")
            }
            pushParameters[parameter.name] = parameter.value ?? ""
        }
        // Which of two values the client meant is a guess; report the duplicate alone.
        guard problems.isEmpty else { throw failure(problems) }
        guard let providerText = pushParameters["pn-provider"] else {
            throw failure(missingPushParametersMessage(address))
        }
        guard let prid = pushParameters["pn-prid"], !prid.isEmpty else {
            throw failure("pn-prid is required: the push token(s) for this device")
        }
        let deviceID = address.headerParameters.first { $0.name == "+sip.instance" }.flatMap(instanceID)

        var result: PushContact?
        switch providerText.lowercased() {
        case "apns", "apns.dev":
            let environment: APNsEnvironment = providerText.lowercased() == "apns" ? .production : .sandbox
            result = apnsContact(
                prid: prid, param: pushParameters["pn-param"], environment: environment, problems: &problems)
        case "fcm":
            result = fcmContact(prid: prid, param: pushParameters["pn-param"], problems: &problems)
        default:
            problems.append("pn-provider \"\(providerText)\" is not supported; expected apns, apns.dev or fcm")
        }
        guard problems.isEmpty, var result else { throw failure(problems) }
        result.deviceID = deviceID
        return result
    }

    private static func apnsContact(
        prid: String, param: String?, environment: APNsEnvironment, problems: inout [String]
    ) -> PushContact? {
        guard let param, !param.isEmpty else {
            problems.append(
                "pn-param is required for apns: <TeamID>.<BundleID>, optionally ending in .voip, .remote or .remote&voip"
            )
            return nil
        }
        let appParameter = APNsAppParameter(param)
        if appParameter == nil {
            problems.append(
                "pn-param \"\(param)\" must be <TeamID>.<BundleID>, optionally ending in .voip, .remote or .remote&voip (e.g. ABCD1234.com.example.app.remote&voip)"
            )
        }
        let tokens = apnsTokens(prid: prid, requested: appParameter?.requested, problems: &problems)
        guard let appParameter, let tokens else { return nil }
        return PushContact(
            service: .apns, environment: environment, bundleID: appParameter.bundleID, teamID: appParameter.teamID,
            tokens: tokens)
    }

    /// Splits `pn-prid` into typed tokens, checking labels against the `pn-param` suffix
    /// (`requested`, nil when there is no suffix or `pn-param` was unreadable).
    private static func apnsTokens(prid: String, requested: Set<TokenType>?, problems: inout [String]) -> [PushToken]? {
        let parts = prid.split(separator: "&", omittingEmptySubsequences: false)
        guard parts.count <= 2 else {
            problems.append(
                "pn-prid has \(parts.count) tokens; expected one, or <RemoteToken>:remote&<PushKitToken>:voip")
            return nil
        }
        var labelled: [(type: TokenType, raw: Substring)] = []
        for part in parts {
            guard let colon = part.lastIndex(of: ":") else {
                guard parts.count == 1 else {
                    problems.append("pn-prid must label each of two tokens: <RemoteToken>:remote&<PushKitToken>:voip")
                    return nil
                }
                if requested == [.apns, .voip] {
                    problems.append(
                        "pn-param asks for remote and voip tokens (.remote&voip) but pn-prid has only one; send <RemoteToken>:remote&<PushKitToken>:voip"
                    )
                    return nil
                }
                labelled.append((requested == [.voip] ? .voip : .apns, part))
                continue
            }
            let label = part[part.index(after: colon)...].lowercased()
            guard let type = ["remote": TokenType.apns, "voip": .voip][label] else {
                problems.append("pn-prid has an unknown token label \":\(label)\"; expected :remote or :voip")
                return nil
            }
            guard !labelled.contains(where: { $0.type == type }) else {
                problems.append("pn-prid has two :\(label) tokens; expected at most one of each")
                return nil
            }
            labelled.append((type, part[..<colon]))
        }
        let given = Set(labelled.map(\.type))
        if let requested, requested != given {
            problems.append("pn-prid has \(describe(given)) but pn-param asks for \(describe(requested))")
            return nil
        }
        var tokens: [PushToken] = []
        for (type, raw) in labelled.sorted(by: { $0.type == .apns && $1.type == .voip }) {
            do { tokens.append(try PushToken(type: type, raw: String(raw))) } catch {
                let kind = type == .voip ? "PushKit (voip)" : "remote"
                problems.append("pn-prid: the \(kind) token \(error.message)")
            }
        }
        return tokens.count == labelled.count ? tokens : nil
    }

    private static func fcmContact(prid: String, param: String?, problems: inout [String]) -> PushContact? {
        var token: PushToken?
        do { token = try PushToken(type: .fcm, raw: prid) } catch {
            problems.append("pn-prid: the FCM token \(error.message)")
        }
        if let param, !Provider.isProjectID(param) {
            problems.append("pn-param \"\(param)\" " + Provider.projectIDMessage)
            return nil
        }
        guard let token else { return nil }
        return PushContact(service: .fcm, projectID: param.flatMap { $0.isEmpty ? nil : $0 }, tokens: [token])
    }

    private static func missingPushParametersMessage(_ address: SIPAddress) -> String {
        let names = Set(address.uriParameters.map(\.name))
        if names.contains("pn-tok") {
            return "uses the legacy pn-type/pn-tok/app-id parameters; send RFC 8599 pn-provider, pn-prid and pn-param"
        }
        if address.headerParameters.contains(where: { $0.name.hasPrefix("pn-") })
            && !names.contains(where: { $0.hasPrefix("pn-") })
        {
            return "has pn-* parameters after the '>'; they must be URI parameters inside <sip:…>"
        }
        if names.contains(where: { $0.hasPrefix("pn-") }) {
            return "pn-provider is required: apns, apns.dev or fcm"
        }
        return "has no push parameters; expected pn-provider, pn-prid and pn-param in the SIP URI"
    }

    /// `+sip.instance="<urn:uuid:…>"` → `urn:uuid:…`, if it makes a valid device id.
    private static func instanceID(_ parameter: SIPParameter) -> DeviceID? {
        guard var value = parameter.value.map({ Substring($0) }) else { return nil }
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
        if value.hasPrefix("<"), value.hasSuffix(">"), value.count >= 2 { value = value.dropFirst().dropLast() }
        return try? DeviceID(String(value))
    }

    private static func describe(_ types: Set<TokenType>) -> String {
        switch (types.contains(.apns), types.contains(.voip)) {
        case (true, true): "remote and voip tokens"
        case (true, false): "a remote token only"
        case (false, true): "a voip token only"
        case (false, false): "no tokens"
        }
    }

    private static func failure(_ message: String) -> ValidationErrors {
        failure([message])
    }

    private static func failure(_ messages: [String]) -> ValidationErrors {
        ValidationErrors(messages.map { ValidationError(field: "contact", message: $0) })
    }
}
