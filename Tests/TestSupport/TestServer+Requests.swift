import Foundation

/// Request helpers: JSON in, `TestResponse` out, the admin key unless another is given.
extension TestServer {
    public enum Key: Sendable {
        case admin, none
        case bearer(String)
        case header(String)
    }

    public func request(
        _ method: String, _ path: String, key: Key = .admin, json: [String: Any]? = nil, body: String? = nil,
        contentType: String? = nil, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var allHeaders = headers
        switch key {
        case .admin: allHeaders.append(("Authorization", "Bearer \(adminKey)"))
        case .none: break
        case .bearer(let secret): allHeaders.append(("Authorization", "Bearer \(secret)"))
        case .header(let value): allHeaders.append(("Authorization", value))
        }
        let payload =
            try json.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) } ?? body
        if payload != nil { allHeaders.append(("Content-Type", contentType ?? "application/json")) }
        let client = try await client()
        do {
            let response = try await client.request(method, path, headers: allHeaders, body: payload)
            await client.close()
            return response
        } catch {
            await client.close()
            throw error
        }
    }

    /// `POST /v1/devices` with the usual fields; extra fields override or add.
    public func register(
        user: String, token: String, provider: String = "ios", type: String = "apns", _ extra: [String: Any] = [:],
        key: Key = .admin
    ) async throws -> TestResponse {
        var body: [String: Any] = ["user_id": user, "provider": provider, "type": type, "token": token]
        body.merge(extra) { $1 }
        return try await request("POST", "/v1/devices", key: key, json: body)
    }

    /// The tokens `GET /v1/users/{user}/devices` lists, in order.
    public func tokens(of user: String, query: String = "") async throws -> [String] {
        let response = try await request("GET", "/v1/users/\(Paths.segment(user))/devices\(query)")
        guard response.status == 200, let devices = response.object?["devices"] as? [[String: Any]] else {
            throw TestFailure("listing \(user) answered \(response.status): \(response.body)")
        }
        return devices.compactMap { $0["token"] as? String }
    }

    /// Rows in the devices table, straight from the database.
    public func deviceRows(where condition: String = "true") async throws -> [(token: String, user: String)] {
        try await pool.withConnection { connection in
            try connection.query("SELECT token, user_id FROM devices WHERE \(condition) ORDER BY id").rows.map {
                (try $0.string("token"), try $0.string("user_id"))
            }
        }
    }
}

/// Test data: valid tokens that differ per call.
public enum Tokens {
    /// A 64-character hex APNs token, unique per `seed`.
    public static func apns(_ seed: Int) -> String {
        String(format: "%064x", seed + 0x1000)
    }

    public static func fcm(_ seed: Int) -> String { "fcm-token:\(seed)_abc-DEF.\(seed)" }
}

public enum Paths {
    /// Percent-encodes one path segment (so '/' becomes %2F).
    public static func segment(_ value: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension TestResponse {
    /// The body as a JSON object, or nil.
    public var object: [String: Any]? {
        json as? [String: Any]
    }
}
