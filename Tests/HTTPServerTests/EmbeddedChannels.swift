import NIOCore
import NIOEmbedded

/// The EmbeddedChannels a test suite made, connected, and finished with their loops when the
/// suite instance goes: otherwise the pipeline, the handlers' timer closures and the
/// EmbeddedEventLoop keep each other alive (LeakSanitizer reported ~70 objects per run).
final class EmbeddedChannels {
    private var channels: [EmbeddedChannel] = []

    deinit {
        for channel in channels {
            _ = try? channel.finish()
            try? channel.embeddedEventLoop.syncShutdownGracefully()
        }
    }

    /// A connected channel, its pipeline set up by `configure`.
    func make(_ configure: (EmbeddedChannel) throws -> Void) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        channels.append(channel)
        try configure(channel)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }
}
