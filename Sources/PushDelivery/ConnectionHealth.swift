import NIOCore

/// When to PING an HTTP/2 connection and when to declare it dead, as pure decisions over clock
/// readings, so the rule is tested without sockets or sleeps.
///
/// The signal is the read side: a connection that a NAT or load balancer dropped silently still
/// accepts writes, so only reads tell it apart from a live one. Like Go's HTTP/2 transport
/// (`ReadIdleTimeout` + `PingTimeout`, which gorush and apns2 rely on), a PING goes out when
/// reads stop, and a connection that reads nothing for `answerTimeout` after it is dead. Unlike
/// an idle-only keepalive (APNSwift's, and ours before), reads that stop while streams are open
/// are noticed within a tick (a quarter of `answerTimeout`), not after the idle interval: a push
/// service answers in milliseconds, so silence under traffic is already suspicious, a PING costs
/// a few bytes, and one that comes back proves the connection is merely slow. Any byte read after the PING counts as the
/// answer: TCP delivers in order, so the peer is still talking.
///
/// A tick that comes much later than asked means this process stalled (CPU starved, paused), so
/// the silence it measured may be its own: the waiting starts over rather than a live
/// connection being closed for it.
struct ConnectionHealth {
    enum Action: Equatable {
        case none
        case ping
        /// No read within `answerTimeout` of the PING: no new streams, close it.
        case retire
    }

    /// Silence tolerated on a connection without open streams before a keepalive PING.
    let idleInterval: TimeAmount
    /// The wait for a PING's answer; a quarter of it is the silence tolerated with streams open.
    let answerTimeout: TimeAmount
    private var lastRead: NIODeadline
    private var lastTick: NIODeadline
    private var pingSentAt: NIODeadline?
    private(set) var isDead = false

    init(idleInterval: TimeAmount, answerTimeout: TimeAmount, now: NIODeadline) {
        self.idleInterval = idleInterval
        self.answerTimeout = answerTimeout
        lastRead = now
        lastTick = now
    }

    /// How often `tick` is meant to be called.
    var tickInterval: TimeAmount { .nanoseconds(answerTimeout.nanoseconds / 4) }

    mutating func read(at now: NIODeadline) {
        lastRead = now
        pingSentAt = nil
    }

    /// A stream got no answer in time: PING at once (unless one is out already) to learn
    /// whether the connection or only that stream is stuck.
    mutating func streamTimedOut(at now: NIODeadline) -> Action {
        guard !isDead, pingSentAt == nil else { return .none }
        pingSentAt = now
        return .ping
    }

    /// Called every `tickInterval`; `openStreams` is the connection's streams in use.
    mutating func tick(at now: NIODeadline, openStreams: Int) -> Action {
        guard !isDead else { return .none }
        defer { lastTick = now }
        if now - lastTick > tickInterval * 2 {
            lastRead = max(lastRead, now - tickInterval)
            if pingSentAt != nil { pingSentAt = now - tickInterval }
            return .none
        }
        if let pingSentAt {
            guard now - pingSentAt >= answerTimeout else { return .none }
            isDead = true
            return .retire
        }
        let tolerated = openStreams > 0 ? tickInterval : idleInterval
        guard now - lastRead >= tolerated else { return .none }
        pingSentAt = now
        return .ping
    }
}
