import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import PushDelivery

/// What TLS is given: the writes of one event-loop turn as one buffer, flushed once.
@Suite struct FlushCoalescerTests {
    @Test func theWritesAndFlushesOfOneTurnReachTLSAsOneWriteAtTheEndOfTheTurn() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FlushCoalescer())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let first = channel.eventLoop.makePromise(of: Void.self)
        let second = channel.eventLoop.makePromise(of: Void.self)
        channel.write(ByteBuffer(string: "HEADERS"), promise: first)
        channel.write(ByteBuffer(string: "DATA"), promise: nil)
        channel.flush()
        channel.writeAndFlush(ByteBuffer(string: "MORE"), promise: second)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "HEADERSDATAMORE"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        try first.futureResult.wait()
        try second.futureResult.wait()

        channel.writeAndFlush(ByteBuffer(string: "NEXT"), promise: nil)
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "NEXT"))
    }

    /// Every write gathered learns the outcome of the one write that carried it, in the order written.
    @Test func theGatheredWritesPromisesCompleteInTheOrderWrittenWithTheirWrite() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FlushCoalescer())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let completed = NIOLockedValueBox<[String]>([])
        for name in ["first", "second", "third"] {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenSuccess { completed.withLockedValue { $0.append(name) } }
            channel.write(ByteBuffer(string: name), promise: promise)
        }
        channel.flush()
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "firstsecondthird"))
        #expect(completed.withLockedValue { $0 } == ["first", "second", "third"])
    }
}
