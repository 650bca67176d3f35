/// Why an attempt got no HTTP answer. All are transient: the request is tried again, on a new
/// connection, while the deadline allows.
enum ConnectionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// TCP or TLS could not be set up (refused, unreachable, certificate not trusted).
    case connect(String)
    /// The connection closed or was told to go away (GOAWAY) before this stream was answered.
    case closed
    /// No answer within the attempt's timeout.
    case timedOut

    var description: String {
        switch self {
        case .connect(let reason): "connection failed: \(reason)"
        case .closed: "connection closed before the answer"
        case .timedOut: "timed out"
        }
    }

    /// The reason reported for the attempt, short and free of addresses.
    var reason: String {
        switch self {
        case .connect: "ConnectionFailed"
        case .closed: "ConnectionClosed"
        case .timedOut: "Timeout"
        }
    }
}
