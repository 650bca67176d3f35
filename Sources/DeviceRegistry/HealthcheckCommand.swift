import ArgumentParser
import NIOCore
import NIOPosix

/// `device-registry healthcheck`: GETs `/readyz` from the server on this host and exits 0 only on
/// a 200, so a container's `HEALTHCHECK` needs nothing but the binary (the image has no curl).
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the local server's GET /readyz answers 200, else 1 (for a container HEALTHCHECK).")

    @Option(help: "Address the server listens on; 0.0.0.0 and :: mean this host. (env: HOST, default: 127.0.0.1)")
    var host: String?
    @Option(help: "The server's port: its operations port when it has one. (env: OPS_PORT, else PORT, default: 8080)")
    var port: Int?
    @Option(help: "Seconds to wait for the answer.")
    var timeoutSeconds: Int = 5

    struct NotReady: Error, CustomStringConvertible {
        let description: String
    }

    func run() async throws {
        let listening = try Setting.resolve(host, env: "HOST", default: "127.0.0.1")
        let address = ["0.0.0.0": "127.0.0.1", "::": "::1"][listening] ?? listening
        // With an operations listener, /readyz answers only there.
        let variable = Setting.optional(nil, env: "OPS_PORT") == nil ? "PORT" : "OPS_PORT"
        let port = try Setting.resolve(
            port, env: variable, default: 8080, valid: { (1...65535).contains($0) }, expected: "a port from 1 to 65535")
        let seconds = timeoutSeconds
        let status = try await withThrowingTaskGroup(of: Int.self) { race in
            race.addTask {
                do { return try await Self.readinessStatus(host: address, port: port) } catch let error as NotReady {
                    throw error
                } catch {
                    throw NotReady(description: "cannot reach \(address):\(port): \(error)")
                }
            }
            race.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw NotReady(description: "no answer from \(address):\(port) within \(seconds) s")
            }
            defer { race.cancelAll() }
            return try await race.next() ?? 0
        }
        guard status == 200 else { throw NotReady(description: "GET /readyz answered \(status)") }
        print("ready")
    }

    /// The status code of `GET /readyz`, read from the status line alone.
    private static func readinessStatus(host: String, port: Int) async throws -> Int {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(
                ByteBuffer(string: "GET /readyz HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"))
            var received = ByteBuffer()
            for try await chunk in inbound {
                received.writeImmutableBuffer(chunk)
                let bytes = received.readableBytesView
                guard let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")) else { continue }
                // "HTTP/1.1 200 OK"
                let fields = String(decoding: bytes[..<lineEnd], as: UTF8.self).split(separator: " ")
                guard fields.count >= 2, let status = Int(fields[1]) else { break }
                return status
            }
            throw NotReady(description: "the answer from \(host):\(port) was not HTTP")
        }
    }
}
