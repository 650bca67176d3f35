import Foundation
import PushTestSupport
import TestSupport

/// curl as an independent HTTP/2 client: if curl gets an answer over TLS with ALPN h2 from the
/// mock, any conforming client does.
struct Curl {
    struct Response {
        let httpVersion: String
        let status: Int
        let headers: [String: String]
        let body: String

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
        }
    }

    let fixture: MockPushFixture

    /// Throws `Command.Failed` when curl gets no HTTP answer (refused stream, dropped connection).
    func send(
        _ path: String, method: String = "POST", headers: [String: String] = [:], body: String? = nil
    ) throws -> Response {
        var arguments = [
            "-sS", "-i", "--http2", "--cacert", fixture.certificates.caFile, "--max-time", "20", "-X", method,
        ]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        arguments.append(fixture.baseURL + path)
        return Self.parse(try Command.run("curl", arguments).standardOutput)
    }

    private static func parse(_ output: String) -> Response {
        let parts = output.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(
            httpVersion: String(statusLine[0]), status: Int(statusLine[1]) ?? 0, headers: headers,
            body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
