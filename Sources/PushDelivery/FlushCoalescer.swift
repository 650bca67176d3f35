import NIOCore

/// Sits between TLS and HTTP/2 on a push connection and turns the writes and flushes of one
/// event-loop turn into one write and one flush. The HTTP/2 handler writes every frame on its
/// own (a DATA frame as two writes, its header and its payload), and TLS seals each write as a
/// record of its own: three records a push, each one an encryption here and a decryption at the
/// push service. Gathered, the frames of every push started in one turn go out as one record
/// (TLS splits it at 16 KiB) and one `sendmsg`. The flush runs after the tasks already queued on
/// the loop, so the streams they open go out with it; a push waits at most that turn.
final class FlushCoalescer: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Past this, what is gathered goes on at once (still unflushed): a copy this size costs
    /// less than the records it saves, a bigger one only holds memory.
    private static let gatherLimit = 64 * 1024

    private var gathered: ByteBuffer?
    /// The promises of the writes gathered, completed in the order written with the write that
    /// carries them. Cascading each to the one before cost a callback allocated per stream and,
    /// at the write's end, a chain of completions as deep as the writes it gathered.
    private var gatheredPromises: [EventLoopPromise<Void>] = []
    private var flushPending = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(var buffer) = unwrapOutboundIn(data) else {
            writeGathered(context: context)
            return context.write(data, promise: promise)
        }
        if gathered == nil {
            gathered = context.channel.allocator.buffer(capacity: Self.gatherLimit)
        } else if gathered!.readableBytes == 0 {
            gathered!.clear()  // TLS has sealed what it was passed: its memory is ours again.
        }
        gathered!.writeBuffer(&buffer)
        if let promise { gatheredPromises.append(promise) }
        if gathered!.readableBytes >= Self.gatherLimit { writeGathered(context: context) }
    }

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute {
            self.flushPending = false
            self.writeGathered(context: context)
            context.flush()
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        writeGathered(context: context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        let promises = gatheredPromises
        gatheredPromises.removeAll()
        for promise in promises { promise.fail(ChannelError.ioOnClosedChannel) }
    }

    /// Passes on what is gathered. The buffer is kept and cleared at the next write, once TLS
    /// has sealed it (at the flush that follows) and dropped it, so its memory is reused.
    private func writeGathered(context: ChannelHandlerContext) {
        guard let buffer = gathered, buffer.readableBytes > 0 else { return }
        gathered!.moveReaderIndex(forwardBy: buffer.readableBytes)
        context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: takePromises(context.eventLoop))
    }

    /// One promise for the write of what is gathered, completing every gathered write's promise.
    private func takePromises(_ eventLoop: any EventLoop) -> EventLoopPromise<Void>? {
        guard gatheredPromises.count > 1 else { return gatheredPromises.popLast() }
        let promises = gatheredPromises
        gatheredPromises.removeAll(keepingCapacity: true)
        let written = eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { result in
            for promise in promises { promise.completeWith(result) }
        }
        return written
    }
}
