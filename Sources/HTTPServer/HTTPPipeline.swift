import Logging
import NIOCore
import NIOHTTP1

/// The channel handlers of one connection, head to tail: framing guard → HTTP decoder /
/// our response encoder → connection state; the server adds the ``HTTPConnectionHandler`` that answers.
enum HTTPPipeline {
    static func configure(_ channel: any Channel, configuration: HTTPServerConfiguration, logger: Logger) throws {
        let limits = RequestFramer.Limits(
            maxRequestLineBytes: configuration.maxRequestLineBytes, maxHeaderBytes: configuration.maxHeaderBytes,
            maxHeaderCount: configuration.maxHeaderCount)
        // The framing guard enforces the exact limits first; the decoder's own limits are a
        // looser backstop so its generic errors never pre-empt the guard's precise answers.
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = 2 * configuration.maxHeaderBytes
        decoderLimits.maxHeaderListSize = 2 * configuration.maxHeaderBytes
        decoderLimits.maxHeaderFieldCount = 2 * configuration.maxHeaderCount + 64
        let timeouts = ConnectionStateHandler.Timeouts(
            idle: configuration.idleTimeout, headerRead: configuration.headerReadTimeout,
            bodyRead: configuration.bodyReadTimeout, write: configuration.writeTimeout)
        let remote = channel.remoteAddress?.ipAddress ?? "?"
        try channel.pipeline.syncOperations.addHandlers([
            RequestFramingHandler(limits: limits),
            ByteToMessageHandler(
                HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)),
            ResponseEncoder(),
            ConnectionStateHandler(timeouts: timeouts) { kind, requestID in
                var metadata: Logger.Metadata = ["timeout": "\(kind.rawValue)", "peer": "\(remote)"]
                if let requestID { metadata["request_id"] = "\(requestID)" }
                // Idle keep-alive connections time out all the time; slow clients are news.
                logger.log(level: kind == .idle ? .debug : .info, "closing connection on timeout", metadata: metadata)
            },
        ])
    }
}
