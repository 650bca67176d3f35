import NIOConcurrencyHelpers
import NIOCore

/// The open connections of a server, so shutdown can quiesce them and later force them closed.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var quiescing = false
    }

    private let state = NIOLockedValueBox(State())

    /// Tracks `channel` until it closes. A connection accepted after shutdown began is told to
    /// quiesce at once (it closes when idle, i.e. right away).
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let quiescing = state.withLockedValue { state in
            state.channels[id] = channel
            return state.quiescing
        }
        channel.closeFuture.whenComplete { _ in
            _ = self.state.withLockedValue { $0.channels.removeValue(forKey: id) }
        }
        if quiescing { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }

    /// Asks every connection to finish its in-flight request and close (idle ones close now).
    func quiesceAll() {
        let channels = state.withLockedValue { state in
            state.quiescing = true
            return Array(state.channels.values)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    /// Waits until every connection has closed or `timeout` has passed; true if they all closed.
    /// Polls: it runs once, at shutdown, and a 10 ms granularity is fine there.
    func waitUntilAllClosed(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !state.withLockedValue({ $0.channels.isEmpty }) {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Closes whatever is still open.
    func closeAll() {
        let channels = state.withLockedValue { Array($0.channels.values) }
        for channel in channels {
            channel.close(promise: nil)
        }
    }
}
