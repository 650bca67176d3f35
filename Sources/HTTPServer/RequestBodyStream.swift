import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

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
/// Reading is driven by iteration: bytes are only read from the socket as the handler asks for
/// them (NIOAsyncChannel's watermarks stop socket reads when it falls behind), so a slow
/// consumer slows the client instead of filling memory. The route's body limit is enforced.
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

/// The connection's request parts, shared by the connection loop and a handler's body stream.
///
/// `@unchecked Sendable` because the iterator is not: the connection loop and the body stream
/// take turns (the loop waits for the handler), and ``RequestBodySource`` refuses overlap.
final class RequestPartReader: @unchecked Sendable {
    private var iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator

    init(_ iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator) {
        self.iterator = iterator
    }

    func next() async throws -> HTTPServerRequestPart? {
        try await iterator.next()
    }
}

/// Hands out the body parts of one request and remembers how that ended.
final class RequestBodySource: Sendable {
    enum Outcome {
        /// The whole body was read.
        case complete
        /// The handler returned before the end; the rest of the body is still on the wire.
        case unfinished
        case failed(any Error)
    }

    private enum State {
        case idle, reading, finished
        case failed(any Error)
        case detached
    }

    private let reader: RequestPartReader
    private let limit: Int?
    private let state = NIOLockedValueBox<(state: State, received: Int)>((.idle, 0))

    init(reader: RequestPartReader, limit: Int?) {
        self.reader = reader
        self.limit = limit
    }

    func next() async throws -> ByteBuffer? {
        let alreadyFinished = try state.withLockedValue { value in
            switch value.state {
            case .idle:
                value.state = .reading
                return false
            case .finished:
                return true
            case .reading, .detached:
                throw RequestBodyError.misuse
            case .failed(let error):
                throw error
            }
        }
        if alreadyFinished { return nil }

        let part: HTTPServerRequestPart?
        do {
            part = try await reader.next()
        } catch {
            throw fail(error)
        }
        switch part {
        case .body(let buffer):
            return try state.withLockedValue { value in
                value.received += buffer.readableBytes
                if let limit, value.received > limit {
                    value.state = .failed(RequestBodyError.tooLarge(limit: limit))
                    throw RequestBodyError.tooLarge(limit: limit)
                }
                if case .reading = value.state { value.state = .idle }
                return buffer
            }
        case .end:
            state.withLockedValue { $0.state = .finished }
            return nil
        case .head, nil:
            throw fail(RequestBodyError.incomplete)
        }
    }

    private func fail(_ error: any Error) -> any Error {
        state.withLockedValue { $0.state = .failed(error) }
        return error
    }

    /// Ends the handler's access and reports how far the body got.
    func detach() -> Outcome {
        state.withLockedValue { value in
            switch value.state {
            case .finished: return .complete
            case .failed(let error): return .failed(error)
            case .idle, .reading, .detached:
                value.state = .detached
                return .unfinished
            }
        }
    }
}
