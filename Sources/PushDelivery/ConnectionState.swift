import NIOCore

/// What one HTTP/2 connection can still take, as its observers learn it.
struct ConnectionState: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS from the server; 100 until its SETTINGS arrive (RFC 9113
    /// recommends at least 100, and APNs and FCM allow more).
    var maximumStreams = 100
    var openStreams = 0
    /// GOAWAY received or the connection closed: no new streams.
    var retired = false
    /// Completed when `openStreams` comes down to 0 (`HTTP2Connection.drained`).
    var drained: [EventLoopPromise<Void>] = []

    var canTakeStream: Bool { !retired && openStreams < maximumStreams }
}
