import CLibPQ
import Foundation
import Logging
import NIOConcurrencyHelpers

/// LISTENs on one channel over a session of its own (not a pooled one), on a thread of its own,
/// and reports what happens. Whoever caches on the strength of notifications must drop its cache
/// on `.interrupted` (notifications may have been missed) and may trust it again after
/// `.listening`. A session that goes quiet is pinged, so a dead server is noticed within seconds
/// rather than when TCP keepalives give up.
///
/// Through a transaction-pooling PgBouncer a LISTEN would hold only as long as one transaction,
/// on a server session that then serves other clients, so the listener refuses to listen there.
public final class PostgresListener: Sendable {
    public enum Event: Sendable, Equatable {
        /// LISTEN is in force; nothing sent from now on will be missed.
        case listening
        case notification(payload: String)
        /// The session failed; notifications may be lost until the next `.listening`.
        case interrupted
    }

    let configuration: PostgresConfiguration
    let channel: String
    let logger: Logger
    let onEvent: @Sendable (Event) -> Void
    private let stopped = NIOLockedValueBox(false)
    private static let pingEvery: Duration = .seconds(5)

    public init(
        configuration: PostgresConfiguration, channel: String, logger: Logger,
        onEvent: @escaping @Sendable (Event) -> Void
    ) {
        self.configuration = configuration
        self.channel = channel
        self.logger = logger
        self.onEvent = onEvent
    }

    public enum Ending: Sendable, Equatable {
        case cancelled
        /// The connection goes through a pooler: nothing was, or will be, listened to.
        case behindPooler
    }

    /// Listens until the calling task is cancelled, or returns `.behindPooler` at once (no event
    /// sent) when the connection turns out to go through a pooler.
    @discardableResult
    public func run() async -> Ending {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<Ending, Never>) in
                Thread { finished.resume(returning: self.listen()) }.start()
            }
        } onCancel: {
            stopped.withLockedValue { $0 = true }
        }
    }

    private func listen() -> Ending {
        var delay = ConnectBackoff.initialDelay
        while !stopped.withLockedValue({ $0 }) {
            do {
                let connection = try PostgresConnection.open(configuration, metrics: PoolMetrics())
                if connection.isBehindPooler { return .behindPooler }
                try connection.execute("LISTEN \"\(channel.replacingOccurrences(of: "\"", with: "\"\""))\"")
                onEvent(.listening)
                delay = ConnectBackoff.initialDelay
                try receive(on: connection)
            } catch {
                logger.warning(
                    "notification listener interrupted", metadata: ["channel": "\(channel)", "error": "\(error)"])
                onEvent(.interrupted)
                Thread.sleep(forTimeInterval: Double(delay.roundedUpMilliseconds) / 1000)
                delay = min(delay * 2, ConnectBackoff.maximumDelay)
            }
        }
        return .cancelled
    }

    /// Delivers notifications until stopped or the session fails (throws).
    private func receive(on connection: PostgresConnection) throws {
        var quietSince = ContinuousClock.now
        while !stopped.withLockedValue({ $0 }) {
            if Socket.wait(PQsocket(connection.handle), for: .read, timeout: .milliseconds(250)) != nil {
                guard PQconsumeInput(connection.handle) == 1 else {
                    throw PostgresError.connectionLost(outcomeUnknown: false)
                }
                quietSince = .now
            } else if ContinuousClock.now - quietSince > Self.pingEvery {
                try connection.execute("SELECT 1")  // bounded by the reply timeout; throws when the server is gone
                quietSince = .now
            }
            // Also what arrived while the ping was answered.
            while let notification = PQnotifies(connection.handle) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                onEvent(.notification(payload: payload))
            }
        }
    }
}
