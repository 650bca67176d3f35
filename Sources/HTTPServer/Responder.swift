import NIOCore

/// Where an ``ImmediateHandler`` sends its answer, once. The response is made on the
/// connection's event loop (at once when called there): the thread that finished the handler's
/// work (a batch runner, say) only hands it over, and goes on with its next batch.
public struct Responder: Sendable {
    let connection: NIOLoopBound<HTTPConnectionHandler>
    let exchange: RequestExchange
    let route: Route
    let source: RequestBodySource?

    /// Answers with what `makeResponse` returns, run on the connection's event loop.
    public func callAsFunction(_ makeResponse: @escaping @Sendable () -> HTTPResponse) {
        if connection.eventLoop.inEventLoop {
            answerOnLoop(makeResponse())
        } else {
            connection.eventLoop.execute { answerOnLoop(makeResponse()) }
        }
    }

    /// The connection's event loop: a caller that hops there itself answers with
    /// ``answerOnLoop(_:)``, without a closure of ours around its own.
    public var eventLoop: any EventLoop { connection.eventLoop }

    /// Answers with `response`; only on ``eventLoop``.
    public func answerOnLoop(_ response: HTTPResponse) {
        connection.value.immediateReturned(response, to: self)
    }
}
