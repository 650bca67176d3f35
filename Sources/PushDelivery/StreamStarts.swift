import NIOConcurrencyHelpers
import NIOCore

/// The requests tasks hand to one connection's event loop, started there together: the first
/// request of a turn schedules the hop, the ones that come before it runs ride along. A hop per
/// request (a closure, the loop's queue lock and, when the loop sleeps, a wake-up) cost more than
/// the request's own framing; a claim's pushes arrive in bursts, as the answers to the ones
/// before them do.
final class StreamStarts: Sendable {
    private struct Start {
        let request: PushHTTPRequest
        let timeout: TimeAmount
        let completion: PushStreamHandler.Completion
    }

    private let streams: NIOLoopBound<PushStreamHandler>
    private let waiting = NIOLockedValueBox<[Start]>([])

    init(streams: NIOLoopBound<PushStreamHandler>) {
        self.streams = streams
    }

    /// Starts `request` on the event loop (at once when called there); `completion` gets its answer.
    func start(_ request: PushHTTPRequest, timeout: TimeAmount, completion: PushStreamHandler.Completion) {
        let eventLoop = streams.eventLoop
        if eventLoop.inEventLoop {
            return streams.value.start(
                request, body: ByteBuffer(bytes: request.body), timeout: timeout, completion: completion)
        }
        let first = waiting.withLockedValue { waiting in
            waiting.append(Start(request: request, timeout: timeout, completion: completion))
            return waiting.count == 1
        }
        if first { eventLoop.execute { self.startWaiting() } }
    }

    private func startWaiting() {
        let starts = waiting.withLockedValue { waiting in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        let handler = streams.value
        // Their bodies in one buffer, each sent as a slice of it: a buffer per body (its storage
        // object and its bytes) was two allocations per push.
        var bodies = ByteBufferAllocator().buffer(capacity: starts.reduce(0) { $0 + $1.request.body.count })
        for start in starts { bodies.writeBytes(start.request.body) }
        for start in starts {
            let body = bodies.readSlice(length: start.request.body.count)!
            handler.start(start.request, body: body, timeout: start.timeout, completion: start.completion)
        }
    }
}
