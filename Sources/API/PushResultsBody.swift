import Encodings
import HTTPServer
import PushEngine

/// `{"results":[…]}`, written directly (`SelfWrittenJSON`): answered once per `POST /v1/push`,
/// where JSONEncoder took about a tenth of the service's CPU per push.
struct PushResultsBody: SelfWrittenJSON {
    let results: [PushResult]

    var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(16 + results.count * 200)
        output.append(contentsOf: #"{"results":["#.utf8)
        for (index, result) in results.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            result.appendJSON(to: &output)
        }
        output.append(contentsOf: "]}".utf8)
        return output
    }
}

extension PushResult {
    /// What `encode(to:)` gives, its keys in the order `.sortedKeys` puts them.
    fileprivate func appendJSON(to output: inout [UInt8]) {
        output.append(contentsOf: #"{"action":"#.utf8)
        JSONText.appendString(action.flatMap { $0 == .ignored ? nil : $0.rawValue }, to: &output)
        // Literals and the number apart: an interpolated field of over 15 bytes is a heap string.
        output.append(contentsOf: #","attempts":"#.utf8)
        output.append(contentsOf: String(attempts).utf8)
        output.append(contentsOf: #","device_id":"#.utf8)
        JSONText.appendString(device_id, to: &output)
        output.append(contentsOf: #","maybe_delivered":"#.utf8)
        output.append(contentsOf: maybe_delivered ? "true".utf8 : "false".utf8)
        output.append(contentsOf: #","provider":"#.utf8)
        JSONText.appendString(provider, to: &output)
        output.append(contentsOf: #","reason":"#.utf8)
        JSONText.appendString(reason, to: &output)
        output.append(contentsOf: #","service_id":"#.utf8)
        JSONText.appendString(service_id, to: &output)
        output.append(contentsOf: #","status":"#.utf8)
        JSONText.appendString(status.rawValue, to: &output)
        output.append(contentsOf: #","token_hint":"#.utf8)
        JSONText.appendString(token_hint, to: &output)
        output.append(contentsOf: #","type":"#.utf8)
        JSONText.appendString(type, to: &output)
        output.append(UInt8(ascii: "}"))
    }
}
