import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import HTTPServer

/// A streamed body between the connection (deliver, finish, fail) and its handler (next, detach).
@Suite struct RequestBodySourceTests {
    final class ResumeCounter: Sendable {
        private let count = NIOLockedValueBox(0)
        func add() { count.withLockedValue { $0 += 1 } }
        var value: Int { count.withLockedValue { $0 } }
    }

    @Test func piecesComeInOrderAndReadingPausesUntilTheyAreTaken() async throws {
        let resumed = ResumeCounter()
        let source = RequestBodySource(limit: nil) { resumed.add() }
        var keepReading: [Bool] = []
        for index in 0..<RequestBodySource.maxWaitingPieces {
            keepReading.append(source.deliver(ByteBuffer(string: "\(index)")))
        }
        #expect(keepReading.last == false)
        #expect(keepReading.dropLast().allSatisfy { $0 })
        for index in 0..<RequestBodySource.maxWaitingPieces {
            #expect(try await source.next() == ByteBuffer(string: "\(index)"))
        }
        #expect(resumed.value == 1)  // once, when the last waiting piece was taken
        source.finish()
        #expect(try await source.next() == nil)
        guard case .complete = source.detach() else {
            Issue.record("not complete")
            return
        }
    }

    @Test func aWaitingReaderGetsThePieceThatArrives() async throws {
        let source = RequestBodySource(limit: nil) {}
        async let piece = source.next()
        // `next()` may or may not be waiting yet; either way the piece reaches it.
        #expect(source.deliver(ByteBuffer(string: "a")))
        #expect(try await piece == ByteBuffer(string: "a"))
    }

    @Test func pastTheLimitIsTooLarge() async throws {
        let source = RequestBodySource(limit: 3) {}
        _ = source.deliver(ByteBuffer(string: "ab"))
        _ = source.deliver(ByteBuffer(string: "cd"))
        #expect(try await source.next() == ByteBuffer(string: "ab"))
        await #expect(throws: RequestBodyError.tooLarge(limit: 3)) { try await source.next() }
        guard case .failed(RequestBodyError.tooLarge(limit: 3)) = source.detach() else {
            Issue.record("not failed with tooLarge")
            return
        }
    }

    @Test func afterTheHandlerReturnedTheBodyIsUnfinishedAndClosedToIt() async throws {
        let source = RequestBodySource(limit: nil) {}
        guard case .unfinished = source.detach() else {
            Issue.record("not unfinished")
            return
        }
        await #expect(throws: RequestBodyError.misuse) { try await source.next() }
    }

    @Test func aBrokenConnectionFailsTheReader() async throws {
        let source = RequestBodySource(limit: nil) {}
        source.fail(RequestBodyError.incomplete)
        await #expect(throws: RequestBodyError.incomplete) { try await source.next() }
    }
}
