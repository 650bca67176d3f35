/// Why an attempt got no HTTP answer, sorted by what the push service may have done with it —
/// the question a resend turns on, since APNs and FCM do not deduplicate.
enum ConnectionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// TCP or TLS could not be set up (refused, unreachable, certificate not trusted): nothing sent.
    case connect(String)
    /// The server ended the TLS handshake with an alert about our client certificate (unknown
    /// CA, bad, expired, revoked, or required and missing): nothing sent, and with certificate
    /// authentication no resend can help.
    case clientCertificateRefused
    /// The stream or connection ended before the request was fully written, or the server
    /// refused the stream unprocessed (REFUSED_STREAM, GOAWAY below it): nothing delivered.
    case closed
    /// No stream or connection within the attempt's timeout: nothing sent.
    case timedOut
    /// Fully written, then the connection proved dead (closed, or its PING unanswered): the
    /// service may have taken it, and it may be resent on another connection.
    case lost
    /// Fully written, and no answer in time on a connection that is alive: the service has it
    /// and is slow, or lost it; no one can tell, so it is not resent.
    case unanswered

    var description: String {
        switch self {
        case .connect(let reason): "connection failed: \(reason)"
        case .clientCertificateRefused: "the server refused the client certificate in the TLS handshake"
        case .closed: "connection closed before the request was sent"
        case .timedOut: "timed out before the request was sent"
        case .lost: "connection lost after the request was sent"
        case .unanswered: "no answer"
        }
    }

    /// The reason reported for the attempt, short and free of addresses.
    var reason: String {
        switch self {
        case .connect: "ConnectionFailed"
        case .clientCertificateRefused: "ClientCertificateRefused"
        case .closed: "ConnectionClosed"
        case .timedOut, .unanswered: "Timeout"
        case .lost: "ConnectionLost"
        }
    }

    /// The request reached the service whole, so a device may have it.
    var mayHaveBeenDelivered: Bool { self == .lost || self == .unanswered }
}
