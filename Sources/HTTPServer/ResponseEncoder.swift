import NIOCore
import NIOHTTP1

/// A response on its way out through our handlers: NIO's parts (an interim head, a streamed
/// answer, the 408 the connection's timer sends), or a whole answer already encoded.
enum ResponsePart {
    case head(HTTPResponseHead)
    case body(IOData)
    case end(HTTPHeaders?)
    /// Head and body as they go on the wire (``ResponseHead/encode``); `closes` when the head
    /// says `Connection: close`. Most answers: no `HTTPHeaders` and no head object are made.
    case whole(ByteBuffer, closes: Bool)
}

/// Writes response parts as HTTP/1.1 bytes, a whole response in one buffer: the head is held
/// until its body and end have come, then goes out as one write. NIO's `HTTPResponseEncoder`
/// wrote the head into a buffer of its own and the body as a second one (two pending writes and
/// two `iovec`s per answer) and searched the headers for the framing on every head; here the
/// framing is what ``ResponseHead`` decided (chunked only when it says `transfer-encoding`).
///
/// The head is written at once instead when a promise asks about it or a flush comes (an
/// interim `100 Continue`, a streamed answer's head); a streamed body is framed in chunks.
/// Headers go out as given: ``ResponseHead`` is the one place that sets the framing ones.
final class ResponseEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ResponsePart
    typealias OutboundOut = IOData

    private var isChunked = false
    /// The response's bytes not written yet: its head, and the body that came after it.
    private var held: ByteBuffer?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head(let head):
            writeHeld(context: context)
            isChunked = head.status.code >= 200 && head.headers.contains(name: "transfer-encoding")
            held = Self.encode(head, allocator: context.channel.allocator)
            if promise != nil { writeHeld(context: context, promise: promise) }
        case .body(let part):
            guard !isChunked else { return writeChunk(part, context: context, promise: promise) }
            if case .byteBuffer(var bytes) = part, var buffer = held {
                held = nil  // so that the buffer below is the only reference and grows in place
                buffer.writeBuffer(&bytes)
                held = buffer
                if promise != nil { writeHeld(context: context, promise: promise) }
            } else {
                writeHeld(context: context)
                context.write(Self.wrapOutboundOut(part), promise: promise)
            }
        case .whole(let bytes, _):
            writeHeld(context: context)
            context.write(Self.wrapOutboundOut(.byteBuffer(bytes)), promise: promise)
        case .end(let trailers):
            if isChunked {
                var buffer = held ?? context.channel.allocator.buffer(capacity: 5)
                held = nil
                buffer.writeStaticString("0\r\n")
                if let trailers {
                    for (name, value) in trailers { Self.writeField(name, value, to: &buffer) }
                }
                buffer.writeStaticString("\r\n")
                isChunked = false
                context.write(Self.wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
            } else if held != nil {
                writeHeld(context: context, promise: promise)
            } else if let promise {
                // Nothing left to write; an empty write completes the promise in order.
                context.write(Self.wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: promise)
            }
        }
    }

    func flush(context: ChannelHandlerContext) {
        writeHeld(context: context)
        context.flush()
    }

    private func writeHeld(context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil) {
        guard let buffer = held else { return }
        held = nil
        context.write(Self.wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
    }

    /// One chunk: its size line, its bytes and CRLF. An empty part is not framed (it would end
    /// the body); it is passed on so that its promise completes in order.
    private func writeChunk(_ part: IOData, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard part.readableBytes > 0 else {
            writeHeld(context: context)
            return context.write(Self.wrapOutboundOut(part), promise: promise)
        }
        var sizeLine = held ?? context.channel.allocator.buffer(capacity: 18)
        held = nil
        sizeLine.writeString(String(part.readableBytes, radix: 16))
        sizeLine.writeStaticString("\r\n")
        context.write(Self.wrapOutboundOut(.byteBuffer(sizeLine)), promise: nil)
        context.write(Self.wrapOutboundOut(part), promise: nil)
        context.write(Self.wrapOutboundOut(.byteBuffer(ByteBuffer(staticString: "\r\n"))), promise: promise)
    }

    /// The status line and the headers, in a buffer with room for the body the head announces.
    static func encode(_ head: HTTPResponseHead, allocator: ByteBufferAllocator) -> ByteBuffer {
        var size = statusLineSize(head.status) + 2
        var bodyLength = 0
        for (name, value) in head.headers {
            size += fieldSize(name, value)
            if bodyLength == 0, equalIgnoringASCIICase(name.utf8, "content-length".utf8) {
                bodyLength = Int(value) ?? 0
            }
        }
        var buffer = allocator.buffer(capacity: size + bodyLength)
        writeStatusLine(head.version, head.status, to: &buffer)
        for (name, value) in head.headers { writeField(name, value, to: &buffer) }
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// "HTTP/1.1 200 OK" and CRLF: at most this many bytes.
    static func statusLineSize(_ status: HTTPResponseStatus) -> Int {
        16 + status.reasonPhrase.utf8.count + 2
    }

    static func writeStatusLine(_ version: HTTPVersion, _ status: HTTPResponseStatus, to buffer: inout ByteBuffer) {
        switch (version.major, version.minor) {
        case (1, 1): buffer.writeStaticString("HTTP/1.1 ")
        case (1, 0): buffer.writeStaticString("HTTP/1.0 ")
        default: buffer.writeString("HTTP/\(version.major).\(version.minor) ")
        }
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
    }

    /// "name: value" and CRLF.
    static func fieldSize(_ name: String, _ value: String) -> Int {
        name.utf8.count + 2 + value.utf8.count + 2
    }

    static func writeField(_ name: String, _ value: String, to buffer: inout ByteBuffer) {
        buffer.writeString(name)
        buffer.writeStaticString(": ")
        buffer.writeString(value)
        buffer.writeStaticString("\r\n")
    }
}
