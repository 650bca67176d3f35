import ArgumentParser
import Foundation
import MockPush
import PushDelivery
import RegistryCore
import RegistryCrypto

/// `mock-push`: the test suite's stand-in for APNs and FCM, for pointing a local setup at (a
/// provider's `endpoint`, and `PUSH_CA_FILE` for the certificate's CA). An executable of its own,
/// so the production `device-registry` binary carries no fake Apple or Google.
@main
struct MockPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-push",
        abstract: "Run a mock APNs and FCM (with its OAuth token endpoint) over TLS and HTTP/2.",
        discussion: """
            It verifies provider tokens and OAuth assertions as Apple and Google do, records every
            request, and answers whatever it is told through its admin routes, e.g.
              curl --cacert ca.pem https://localhost:8443/_mock/requests
              curl --cacert ca.pem -d '{"service":"apns","status":410,"reason":"Unregistered"}' \\
                https://localhost:8443/_mock/replies
            A certificate for localhost, signed by a CA of your own:
              openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \\
                -out ca.pem -subj /CN=mock-ca -addext basicConstraints=critical,CA:TRUE
              openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key \\
                -out server.csr -subj /CN=localhost
              openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -out server.pem \\
                -extfile <(echo subjectAltName=DNS:localhost,IP:127.0.0.1)
            With --fault-proxy-port, a TCP proxy to the mock listens there too (point the provider's
            endpoint at it) and `kill -USR1 <pid>` black-holes the connections open through it:
            they stop forwarding without closing, as a NAT that forgot them does.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8443
    @Option(help: "PEM file: the server certificate, then any intermediates.") var certificate: String
    @Option(help: "PEM file: the server certificate's private key.") var privateKey: String
    @Option(help: "SETTINGS_MAX_CONCURRENT_STREAMS to announce.") var maxConcurrentStreams = 1000
    @Option(
        name: .customLong("apns-key"),
        help: "TEAM_ID:KEY_ID:FILE.p8 — accept provider tokens signed with this key; repeatable.")
    var apnsKeys: [String] = []
    @Option(
        name: .customLong("fcm-service-account"),
        help: "A service account JSON file — accept its OAuth assertions for its project; repeatable.")
    var serviceAccounts: [String] = []
    @Option(help: "Also listen here (127.0.0.1; 0 picks a port) as a fault proxy to the mock; SIGUSR1 black-holes it.")
    var faultProxyPort: Int?

    func run() async throws {
        let server = try await MockPushServer.start(
            MockPushServer.Configuration(
                host: host, port: port, certificateChainFile: certificate, privateKeyFile: privateKey,
                maximumConcurrentStreams: maxConcurrentStreams))
        for argument in apnsKeys {
            let parts = argument.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3 else { throw ValidationError("--apns-key must be TEAM_ID:KEY_ID:FILE.p8") }
            let key = try SigningKey(pem: String(contentsOfFile: parts[2], encoding: .utf8), algorithm: .es256)
            server.registerAPNsKey(teamID: parts[0], keyID: parts[1], publicKey: try key.verifyingKey())
        }
        for file in serviceAccounts {
            // Read as `providers set-credentials` reads it, so both accept the same files.
            guard let json = try? JSONParser.parse(try String(contentsOfFile: file, encoding: .utf8)) else {
                throw ValidationError("--fcm-service-account \(file) is not JSON")
            }
            let account = try FCMServiceAccount(json: json)
            server.registerFCMAccount(
                clientEmail: account.clientEmail, projectID: account.projectID,
                publicKey: try account.key.verifyingKey())
        }
        // Flushed at once: a script waiting for this line reads a pipe, which print() buffers.
        FileHandle.standardOutput.write(Data("mock push listening on https://\(host):\(server.port)\n".utf8))
        guard let faultProxyPort else { return try await server.waitUntilClosed() }
        let proxy = try await FaultProxy.start(listeningOn: faultProxyPort, forwardingTo: host, port: server.port)
        // A signal rather than an admin route: the proxy sits in front of the mock's HTTP server,
        // not in it, and `kill` is what any shell has.
        signal(SIGUSR1, SIG_IGN)
        let blackholes = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        blackholes.setEventHandler {
            proxy.blackholeOpenConnections()
            FileHandle.standardOutput.write(
                Data("fault proxy black-holed its open connections (\(proxy.connectionsAccepted) accepted)\n".utf8))
        }
        blackholes.resume()
        FileHandle.standardOutput.write(Data("fault proxy listening on 127.0.0.1:\(proxy.port)\n".utf8))
        try await server.waitUntilClosed()
        blackholes.cancel()
    }
}
