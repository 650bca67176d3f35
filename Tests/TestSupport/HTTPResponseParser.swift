import Foundation

/// Parses one HTTP/1.1 response from the front of a byte buffer, for ``HTTPTestClient``.
enum ResponseParser {
    enum Outcome {
        case complete(TestResponse, consumed: Int)
        case incomplete
    }

    static func parse(_ bytes: [UInt8], toHEAD: Bool, peerClosed: Bool) throws -> Outcome {
        guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else { return .incomplete }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw HTTPTestClientError.malformedResponse(lines[0])
        }
        var response = TestResponse(
            status: status, reason: statusParts.count > 2 ? String(statusParts[2]) : "", headers: [], bodyBytes: [])
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw HTTPTestClientError.malformedResponse(line) }
            response.headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let bodyStart = headEnd + 4
        if toHEAD || status < 200 || status == 204 || status == 304 {
            return .complete(response, consumed: bodyStart)
        }
        if response.header("transfer-encoding")?.lowercased() == "chunked" {
            return try parseChunked(bytes, from: bodyStart, response: response)
        }
        if let lengthText = response.header("content-length") {
            guard let length = Int(lengthText) else { throw HTTPTestClientError.malformedResponse(lengthText) }
            guard bytes.count >= bodyStart + length else { return .incomplete }
            response.bodyBytes = Array(bytes[bodyStart..<(bodyStart + length)])
            return .complete(response, consumed: bodyStart + length)
        }
        // Delimited by the connection closing.
        guard peerClosed else { return .incomplete }
        response.bodyBytes = Array(bytes[bodyStart...])
        return .complete(response, consumed: bytes.count)
    }

    private static func parseChunked(_ bytes: [UInt8], from start: Int, response: TestResponse) throws -> Outcome {
        var response = response
        var index = start
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: index) else { return .incomplete }
            let sizeText =
                String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                .split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw HTTPTestClientError.malformedResponse("chunk size \(sizeText)")
            }
            index = lineEnd + 2
            if size == 0 {
                // Trailers (none expected) end with an empty line.
                guard let trailerEnd = find([13, 10], in: bytes, from: index) else { return .incomplete }
                if trailerEnd == index { return .complete(response, consumed: index + 2) }
                guard let end = find([13, 10, 13, 10], in: bytes, from: index) else { return .incomplete }
                return .complete(response, consumed: end + 4)
            }
            guard bytes.count >= index + size + 2 else { return .incomplete }
            response.bodyBytes += bytes[index..<(index + size)]
            index += size + 2
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
            if Array(bytes[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }
}
