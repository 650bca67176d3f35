import Logging
import NIOCore
import NIOHTTP1

/// What every connection of one server shares.
struct ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let router: Router
    let logger: Logger
    let accessLog: AccessLog
}

/// Serves one accepted connection in a Swift task on the connection's event loop (see
/// `EventLoopTaskExecutor`): reads requests strictly in order, runs each handler and writes its
/// response before reading the next one, which is what keeps pipelined responses in request order.
struct HTTPConnection {
    let channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    let context: ServerContext

    func serve() async {
        let remoteAddress = channel.channel.remoteAddress?.ipAddress
        do {
            try await channel.executeThenClose { inbound, outbound in
                let reader = RequestPartReader(inbound.makeAsyncIterator())
                var served = 0
                while true {
                    let part: HTTPServerRequestPart?
                    do {
                        part = try await reader.next()
                    } catch {
                        // Bytes that are not a request (framing limits, parse errors): answer
                        // once, after everything before them was answered, and close.
                        try await rejectUnreadable(error, outbound: outbound)
                        return
                    }
                    guard case .head(let head) = part else { return }
                    served += 1
                    let exchange = RequestExchange(
                        head: head, isLastOnConnection: served >= context.configuration.maxRequestsPerConnection,
                        remoteAddress: remoteAddress, reader: reader, outbound: outbound, context: context)
                    switch try await exchange.run() {
                    case .keepAlive:
                        continue
                    case .closeAfterResponse:
                        // ConnectionStateHandler closes once the response is written; closing
                        // here could drop the part of it still waiting for the socket.
                        try? await channel.channel.closeFuture.get()
                        return
                    case .abort:
                        return
                    }
                }
            }
        } catch {
            context.logger.debug("connection ended with an error", metadata: ["error": "\(error)"])
        }
    }

    private func rejectUnreadable(_ error: any Error, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>)
        async throws
    {
        // Anything else (reset, cancellation, closed channel) means there is nobody to answer.
        guard error is RequestRejection || error is HTTPParserError else { return }
        let rejection = RequestRejection.from(error)
        let requestID = RequestID.generate()
        let start = ContinuousClock.now
        let response = HTTPResponse.problem(Problem(status: rejection.status, detail: rejection.detail))
        let head = ResponseHead.make(
            response, version: .http1_1, isHeadRequest: false, requestID: requestID, close: true)
        var parts: [HTTPServerResponsePart] = [.head(head)]
        if case .bytes(let buffer) = response.body { parts.append(.body(.byteBuffer(buffer))) }
        parts.append(.end(nil))
        try await outbound.write(contentsOf: parts)
        context.accessLog.record(
            method: nil, route: AccessLog.unmatched, response: response, requestID: requestID, since: start)
        try? await channel.channel.closeFuture.get()
    }
}
