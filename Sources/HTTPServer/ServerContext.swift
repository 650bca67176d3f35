import Logging

/// What every connection of one server shares.
struct ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let router: Router
    let logger: Logger
    let accessLog: AccessLog
}
