import NIOConcurrencyHelpers
import NIOCore

/// Why iterating a ``RequestBodyStream`` failed.
public enum RequestBodyError: Error, Sendable, Equatable {
    /// The body passed the route's limit; the server answers 413 and closes the connection.
    case tooLarge(limit: Int)
    /// The connection ended or broke before the body did.
    case incomplete
    /// Iterated after the handler returned, or from two tasks at once.
    case misuse
}

/// The body of a `.streamed` route, as it arrives. Iterate it once, within the handler.
///
/// Reading is driven by iteration: the connection stops reading the socket while a few pieces
/// wait unread and reads again once the handler has taken them, so a slow consumer slows the
/// client instead of filling memory. The route's body limit is enforced.
public struct RequestBodyStream: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    let source: RequestBodySource

    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: RequestBodySource

        public mutating func next() async throws -> ByteBuffer? {
            try await source.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: source)
    }

    /// Collects the whole body, failing with ``RequestBodyError/tooLarge(limit:)`` past `limit` bytes.
    public func collect(upTo limit: Int) async throws -> ByteBuffer {
        var all = ByteBuffer()
        for try await chunk in self {
            guard all.readableBytes + chunk.readableBytes <= limit else {
                throw RequestBodyError.tooLarge(limit: limit)
            }
            var chunk = chunk
            all.writeBuffer(&chunk)
        }
        return all
    }
}

/// The body of one streamed request, handed from the connection's event loop (``deliver(_:)``,
/// ``finish()``, ``fail(_:)``) to the handler that iterates it (``next()``), and how that ended.
final class RequestBodySource: Sendable {
    enum Outcome {
        /// The whole body was read.
        case complete
        /// The handler returned before the end; the rest of the body is still on the wire.
        case unfinished
        case failed(any Error)
    }

    private enum End {
        case finished
        case failed(any Error)
    }

    private struct State {
        var pieces = CircularBuffer<ByteBuffer>()
        var end: End?
        var waiter: UnsafeContinuation<ByteBuffer?, any Error>?
        var received = 0
        /// The connection stopped reading the socket until the pieces are taken.
        var readingPaused = false
        var detached = false
    }

    /// Pieces waiting before the connection stops reading the socket.
    static let maxWaitingPieces = 4

    private let limit: Int?
    /// Asks the connection to read the socket again; called once the waiting pieces are taken.
    private let resumeReading: @Sendable () -> Void
    private let state = NIOLockedValueBox(State())

    init(limit: Int?, resumeReading: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.resumeReading = resumeReading
    }

    /// The next piece; nil at the end of the body.
    func next() async throws -> ByteBuffer? {
        try await withUnsafeThrowingContinuation { continuation in
            // nil: wait for the connection to deliver.
            let (answer, resume) = state.withLockedValue { state -> (Result<ByteBuffer?, any Error>?, Bool) in
                if state.detached || state.waiter != nil { return (.failure(RequestBodyError.misuse), false) }
                if let piece = state.pieces.popFirst() {
                    let resume = state.readingPaused && state.pieces.isEmpty
                    if resume { state.readingPaused = false }
                    return (.success(piece), resume)
                }
                switch state.end {
                case .finished: return (.success(nil), false)
                case .failed(let error): return (.failure(error), false)
                case nil:
                    state.waiter = continuation
                    let resume = state.readingPaused
                    state.readingPaused = false
                    return (nil, resume)
                }
            }
            if resume { resumeReading() }
            if let answer { continuation.resume(with: answer) }
        }
    }

    /// Hands over a piece that arrived; false when the connection should stop reading the socket
    /// until ``next()`` has taken the waiting pieces (and calls `resumeReading`).
    func deliver(_ piece: ByteBuffer) -> Bool {
        let (waiter, failure, keepReading) = state.withLockedValue {
            state -> (UnsafeContinuation<ByteBuffer?, any Error>?, (any Error)?, Bool) in
            guard state.end == nil, !state.detached else { return (nil, nil, false) }
            state.received += piece.readableBytes
            if let limit, state.received > limit {
                let error = RequestBodyError.tooLarge(limit: limit)
                state.end = .failed(error)
                defer { state.waiter = nil }
                return (state.waiter, error, false)
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, nil, true)
            }
            state.pieces.append(piece)
            if state.pieces.count >= Self.maxWaitingPieces { state.readingPaused = true }
            return (nil, nil, !state.readingPaused)
        }
        if let failure {
            waiter?.resume(throwing: failure)
        } else {
            waiter?.resume(returning: piece)
        }
        return keepReading
    }

    /// The body ended.
    func finish() {
        end(.finished)
    }

    /// The body broke off: the connection failed or closed before its end.
    func fail(_ error: any Error) {
        end(.failed(error))
    }

    private func end(_ end: End) {
        let waiter = state.withLockedValue { state -> UnsafeContinuation<ByteBuffer?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.waiter = nil }
            return state.waiter
        }
        switch end {
        case .finished: waiter?.resume(returning: nil)
        case .failed(let error): waiter?.resume(throwing: error)
        }
    }

    /// Ends the handler's access and reports how far the body got.
    func detach() -> Outcome {
        let (outcome, waiter) = state.withLockedValue {
            state -> (Outcome, UnsafeContinuation<ByteBuffer?, any Error>?) in
            state.detached = true
            defer { state.waiter = nil }
            switch state.end {
            case .finished: return (.complete, state.waiter)
            case .failed(let error): return (.failed(error), state.waiter)
            case nil: return (.unfinished, state.waiter)
            }
        }
        // A task still iterating after the handler returned is misuse; it must not hang.
        waiter?.resume(throwing: RequestBodyError.misuse)
        return outcome
    }
}
