/// A Google API error body (`google.rpc.Status` in JSON), with FCM's `FcmError` code and a
/// `BadRequest` field violation in `details` when given.
struct GoogleError: Encodable {
    struct Status: Encodable {
        let code: Int
        let message: String
        let status: String
        let details: [Detail]
    }

    struct Detail: Encodable {
        let type: String
        let errorCode: String?
        let fieldViolations: [FieldViolation]?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode, fieldViolations
        }
    }

    struct FieldViolation: Encodable {
        let field: String
        let description: String
    }

    let error: Status

    init(status code: Int, errorCode: String?, message: String, field: String? = nil) {
        var details: [Detail] = []
        if let errorCode {
            details.append(
                Detail(
                    type: "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: errorCode,
                    fieldViolations: nil))
        }
        if let field {
            details.append(
                Detail(
                    type: "type.googleapis.com/google.rpc.BadRequest", errorCode: nil,
                    fieldViolations: [FieldViolation(field: field, description: message)]))
        }
        error = Status(code: code, message: message, status: Self.statusName(code), details: details)
    }

    /// The canonical gRPC status Google pairs with each HTTP status.
    static func statusName(_ code: Int) -> String {
        switch code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 500: "INTERNAL"
        case 503: "UNAVAILABLE"
        default: "UNKNOWN"
        }
    }
}
