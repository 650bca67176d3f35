import Foundation
import HTTPServer
import NIOCore
import RegistryCore

/// Reading a request's body and query the same way on every route.
enum RequestReading {
    /// The body as JSON; 400 when it is empty or not JSON.
    static func json(_ request: HTTPRequest) throws -> JSONValue {
        try request.body.withUnsafeReadableBytes { try json($0) }
    }

    static func json(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        guard !bytes.isEmpty else {
            throw APIFailure.emptyJSON
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw APIFailure.malformedJSON(offset: error.offset)
        }
    }

    /// The query's parameters by name, refusing names the route does not know (a misspelt filter
    /// silently widening a result is worse than an error) and repeated names.
    static func query(_ request: HTTPRequest, allowed: [String]) throws -> [String: String] {
        var parameters: [String: String] = [:]
        var errors: [ValidationError] = []
        for name in request.query.names {
            let values = request.query.values(name)
            if !allowed.contains(name) {
                let known =
                    allowed.isEmpty
                    ? "this route takes no query parameters" : "known: \(allowed.joined(separator: ", "))"
                errors.append(ValidationError(field: name, message: "is not a known query parameter (\(known))"))
            } else if values.count > 1 {
                errors.append(ValidationError(field: name, message: "must be given once"))
            } else {
                parameters[name] = values.first
            }
        }
        guard errors.isEmpty else { throw RegistryError.validation(errors) }
        return parameters
    }

    /// An optional `true`/`false` query flag.
    static func flag(_ parameters: [String: String], _ name: String) throws -> Bool {
        switch parameters[name] {
        case nil, "false": return false
        case "true": return true
        default: throw RegistryError.validation([ValidationError(field: name, message: "must be true or false")])
        }
    }

    /// `?consistency=strong`: read from the primary even when a replica could answer.
    static func strongConsistency(_ parameters: [String: String]) throws -> Bool {
        switch parameters["consistency"] {
        case nil: return false
        case "strong": return true
        default: throw RegistryError.validation([ValidationError(field: "consistency", message: "must be strong")])
        }
    }

    /// An optional provider name from the query.
    static func provider(_ parameters: [String: String]) throws -> ProviderName? {
        try parameters["provider"].map { raw throws(ValidationError) in try ProviderName(raw) }
    }

    /// A validated path parameter.
    static func userID(_ request: HTTPRequest) throws -> UserID {
        try UserID(request.pathParameters["user_id"] ?? "")
    }
}
