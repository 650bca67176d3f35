import API
import ArgumentParser
import HTTPServer
import NIOCore

/// Where `serve` listens and the HTTP limits and timeouts it enforces.
struct HTTPOptions: ParsableArguments {
    @Option(help: "Address to listen on; 0.0.0.0 for all interfaces. (env: HOST, default: 127.0.0.1)")
    var host: String?
    @Option(help: "TCP port; 0 picks a free one. (env: PORT, default: 8080)")
    var port: Int?
    @Option(help: "Longest request line in bytes; longer → 414. (env: MAX_REQUEST_LINE_BYTES, default: 8192)")
    var maxRequestLineBytes: Int?
    @Option(help: "Largest header block in bytes; larger → 431. (env: MAX_HEADER_BYTES, default: 16384)")
    var maxHeaderBytes: Int?
    @Option(help: "Most header fields per request; more → 431. (env: MAX_HEADER_COUNT, default: 64)")
    var maxHeaderCount: Int?
    @Option(
        help:
            "Largest request body in bytes; larger → 413 (the batch route allows 1 MiB). (env: MAX_BODY_BYTES, default: 65536)"
    )
    var maxBodyBytes: Int?
    @Option(help: "Seconds a kept-alive connection may sit idle. (env: IDLE_TIMEOUT_SECONDS, default: 60)")
    var idleTimeoutSeconds: Int?
    @Option(help: "Seconds a client has to send a request's headers. (env: HEADER_TIMEOUT_SECONDS, default: 10)")
    var headerTimeoutSeconds: Int?
    @Option(help: "Seconds a client has to send a request's body. (env: BODY_TIMEOUT_SECONDS, default: 10)")
    var bodyTimeoutSeconds: Int?
    @Option(
        help: "Requests served on one connection before it is closed. (env: MAX_REQUESTS_PER_CONNECTION, default: 1000)"
    )
    var maxRequestsPerConnection: Int?
    @Option(help: "Seconds in-flight requests get to finish at shutdown. (env: SHUTDOWN_GRACE_SECONDS, default: 10)")
    var shutdownGraceSeconds: Int?
    @Option(
        help:
            "Seconds /readyz answers 503 after SIGTERM before the listener closes, so load balancers stop sending first. (env: SHUTDOWN_DRAIN_SECONDS, default: 5)"
    )
    var shutdownDrainSeconds: Int?
    @Option(
        help:
            "A second port serving /metrics, /readyz and /healthz, which then leave the public port (/healthz stays on both); off unless given. (env: OPS_PORT, default: off)"
    )
    var opsPort: Int?
    @Option(
        help:
            "Load balancers whose Forwarded / X-Forwarded-For headers name the client, as CIDR blocks, e.g. 10.0.0.0/8,fd00::/8. (env: TRUSTED_PROXIES, default: none)"
    )
    var trustedProxies: String?
    @Option(
        help:
            "Most connections open at once; past it new ones are closed at once and counted. (env: MAX_CONNECTIONS, default: 4096)"
    )
    var maxConnections: Int?
    @Option(
        help:
            "Seconds a response may wait for a client that stopped reading; then the connection is closed. (env: WRITE_TIMEOUT_SECONDS, default: 30)"
    )
    var writeTimeoutSeconds: Int?

    func configuration() throws -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        let positive = { (value: Int) in value > 0 }
        configuration.host = try Setting.resolve(host, env: "HOST", default: configuration.host)
        configuration.port = try Setting.resolve(
            port, env: "PORT", default: configuration.port, valid: { (0...65535).contains($0) },
            expected: "a port from 0 to 65535")
        configuration.maxRequestLineBytes = try Setting.resolve(
            maxRequestLineBytes, env: "MAX_REQUEST_LINE_BYTES", default: configuration.maxRequestLineBytes,
            valid: positive, expected: "a positive number of bytes")
        configuration.maxHeaderBytes = try Setting.resolve(
            maxHeaderBytes, env: "MAX_HEADER_BYTES", default: configuration.maxHeaderBytes,
            valid: positive, expected: "a positive number of bytes")
        configuration.maxHeaderCount = try Setting.resolve(
            maxHeaderCount, env: "MAX_HEADER_COUNT", default: configuration.maxHeaderCount,
            valid: positive, expected: "a positive number")
        configuration.maxBodyBytes = try Setting.resolve(
            maxBodyBytes, env: "MAX_BODY_BYTES", default: configuration.maxBodyBytes,
            valid: positive, expected: "a positive number of bytes")
        configuration.idleTimeout = .seconds(
            Int64(
                try Setting.resolve(
                    idleTimeoutSeconds, env: "IDLE_TIMEOUT_SECONDS", default: 60, valid: positive,
                    expected: "a positive number of seconds")))
        configuration.headerReadTimeout = .seconds(
            Int64(
                try Setting.resolve(
                    headerTimeoutSeconds, env: "HEADER_TIMEOUT_SECONDS", default: 10, valid: positive,
                    expected: "a positive number of seconds")))
        configuration.bodyReadTimeout = .seconds(
            Int64(
                try Setting.resolve(
                    bodyTimeoutSeconds, env: "BODY_TIMEOUT_SECONDS", default: 10, valid: positive,
                    expected: "a positive number of seconds")))
        configuration.maxRequestsPerConnection = try Setting.resolve(
            maxRequestsPerConnection, env: "MAX_REQUESTS_PER_CONNECTION",
            default: configuration.maxRequestsPerConnection,
            valid: positive, expected: "a positive number")
        configuration.shutdownGracePeriod = .seconds(
            Int64(
                try Setting.resolve(
                    shutdownGraceSeconds, env: "SHUTDOWN_GRACE_SECONDS", default: 10, valid: positive,
                    expected: "a positive number of seconds")))
        configuration.maxConnections = try Setting.resolve(
            maxConnections, env: "MAX_CONNECTIONS", default: configuration.maxConnections, valid: positive,
            expected: "a positive number")
        configuration.writeTimeout = .seconds(
            Int64(
                try Setting.resolve(
                    writeTimeoutSeconds, env: "WRITE_TIMEOUT_SECONDS", default: 30, valid: positive,
                    expected: "a positive number of seconds")))
        return configuration
    }

    /// How long `/readyz` answers 503 at shutdown before the listeners close.
    func drain() throws -> Duration {
        .seconds(
            try Setting.resolve(
                shutdownDrainSeconds, env: "SHUTDOWN_DRAIN_SECONDS", default: 5, valid: { (0...300).contains($0) },
                expected: "0–300 seconds"))
    }

    /// The operations listener's configuration (the public one's, on `--ops-port`); nil when off.
    func opsConfiguration() throws -> HTTPServerConfiguration? {
        var configuration = try configuration()
        let unset = -1
        let port = try Setting.resolve(
            opsPort, env: "OPS_PORT", default: unset, valid: { (0...65535).contains($0) },
            expected: "a port from 0 to 65535")
        guard port != unset else { return nil }
        configuration.port = port
        return configuration
    }

    /// The proxies the bad-key limiter believes about who the client is; none unless given.
    func resolvedTrustedProxies() throws -> TrustedProxies {
        guard let text = Setting.optional(trustedProxies, env: "TRUSTED_PROXIES") else { return .none }
        guard let proxies = TrustedProxies(text) else {
            let name = trustedProxies == nil ? "TRUSTED_PROXIES" : "--trusted-proxies"
            throw ConfigurationError(
                "\(name) must be CIDR blocks separated by commas, e.g. 10.0.0.0/8,fd00::/8, got '\(text)'")
        }
        return proxies
    }
}
