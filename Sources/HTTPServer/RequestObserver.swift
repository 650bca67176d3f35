import NIOHTTP1

/// Told about every answered request, after the response was written (e.g. for audit or tests).
public protocol RequestObserver: Sendable {
    func requestCompleted(_ request: CompletedRequest)
}

public struct CompletedRequest: Sendable {
    public var method: HTTPMethod
    /// The matched template, or "unmatched".
    public var routeTemplate: String
    public var status: HTTPResponseStatus
    public var duration: Duration
    public var requestID: String
    public var logMetadata: [String: String]

    public init(
        method: HTTPMethod, routeTemplate: String, status: HTTPResponseStatus, duration: Duration, requestID: String,
        logMetadata: [String: String] = [:]
    ) {
        self.method = method
        self.routeTemplate = routeTemplate
        self.status = status
        self.duration = duration
        self.requestID = requestID
        self.logMetadata = logMetadata
    }
}
