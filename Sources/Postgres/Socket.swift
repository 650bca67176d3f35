#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waiting on libpq's socket with a timeout, so that a server that stops answering (frozen, cut
/// off) costs a bounded wait instead of a thread forever.
enum Socket {
    struct Readiness: OptionSet {
        let rawValue: Int
        static let read = Readiness(rawValue: 1)
        static let write = Readiness(rawValue: 2)
    }

    /// Returns what the socket is ready for, or nil when `timeout` passed first (nil waits forever).
    /// Errors and hang-ups count as ready: libpq then reads or writes and reports what is wrong.
    static func wait(_ descriptor: Int32, for interest: Readiness, timeout: Duration?) -> Readiness? {
        guard descriptor >= 0 else { return interest }
        var events: Int16 = 0
        if interest.contains(.read) { events |= Int16(POLLIN) }
        if interest.contains(.write) { events |= Int16(POLLOUT) }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let milliseconds = deadline.map { Int32(clamping: max(0, ($0 - .now).roundedUpMilliseconds)) } ?? -1
            let count = poll(&entry, 1, milliseconds)
            if count == 0 { return nil }
            if count < 0 {
                if errno == EINTR { continue }
                return interest
            }
            var ready: Readiness = []
            if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { ready.insert(.read) }
            if entry.revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 { ready.insert(.write) }
            return ready.intersection(interest).isEmpty ? interest : ready.intersection(interest)
        }
    }
}
