extension Duration {
    /// Whole milliseconds, rounded up so that a short positive timeout never becomes "no timeout" (0).
    var roundedUpMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond
    }
}

extension Duration {
    /// Whole nanoseconds, for metrics' timers.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
