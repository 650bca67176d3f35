import HTTPServer
import Logging

/// Where a route behind `APIContext.guardedImmediately` hands its outcome, once, from any
/// thread: the response is made on the connection's event loop, a failure becomes a problem
/// through the one mapping table, and the key's id goes to the access log, as `guarded` does.
struct GuardedAnswer: Sendable {
    let respond: Responder
    let caller: Caller
    let requestID: String
    let logger: Logger

    /// Answers with what `makeResponse` returns, or with the problem it throws. One hop to the
    /// connection's loop, one closure: wrapping `makeResponse` for the ``Responder`` to hop with
    /// was one allocation and a copy of this answer's references more per request.
    func callAsFunction(_ makeResponse: @escaping @Sendable () throws -> HTTPResponse) {
        onLoop { [self] in answerOnLoop(makeResponse) }
    }

    /// Runs `body` on the connection's event loop (at once when called there), where it answers
    /// with ``answerOnLoop(_:)``: for the hottest route, whose outcome comes from the batch runner's
    /// thread, the one closure per answer (`body` itself is what the loop runs).
    func onLoop(_ body: @escaping @Sendable () -> Void) {
        let loop = respond.eventLoop
        if loop.inEventLoop { body() } else { loop.execute(body) }
    }

    /// Answers with what `makeResponse` returns, or with the problem it throws; on the
    /// connection's event loop only.
    func answerOnLoop(_ makeResponse: () throws -> HTTPResponse) {
        do {
            var response = try makeResponse()
            response.logKeyID(of: caller)
            respond.answerOnLoop(response)
        } catch {
            respond.answerOnLoop(Self.problem(for: error, requestID: requestID, caller: caller, logger: logger))
        }
    }

    /// Answers with what the async `work` returns, in a task of its own (a route's rarer branch).
    func later(_ work: @escaping @Sendable () async throws -> HTTPResponse) {
        Task {
            let outcome: Result<HTTPResponse, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            callAsFunction { try outcome.get() }
        }
    }

    /// The problem response to `error`, with the key's id when the caller is known.
    static func problem(for error: any Error, requestID: String, caller: Caller?, logger: Logger) -> HTTPResponse {
        // Only here: metadata copies the logger's storage, and most requests log nothing.
        var logger = logger
        logger[metadataKey: "request_id"] = "\(requestID)"
        var response = HTTPResponse.problem(ProblemMapping.problem(for: error, logger: logger))
        if let caller { response.logKeyID(of: caller) }
        return response
    }
}
