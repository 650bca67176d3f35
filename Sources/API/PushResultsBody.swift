import Encodings
import HTTPServer
import NIOCore
import PushEngine

/// `{"results":[…]}`, written directly into the response body (`SelfWrittenJSON`): answered once
/// per `POST /v1/push`, where JSONEncoder took about a tenth of the service's CPU per push.
struct PushResultsBody: SelfWrittenJSON {
    let results: [PushResult]

    /// A sent result is about 240 bytes (its `service_id` a 36-character UUID).
    var jsonCapacity: Int { 16 + results.count * 320 }

    func writeJSON(to body: inout ByteBuffer) {
        body.writeStaticString(#"{"results":["#)
        for (index, result) in results.enumerated() {
            if index > 0 { body.writeStaticString(",") }
            result.writeJSON(to: &body)
        }
        body.writeStaticString("]}")
    }
}

extension PushResult {
    /// What `encode(to:)` gives, its keys in the order `.sortedKeys` puts them.
    fileprivate func writeJSON(to body: inout ByteBuffer) {
        func string(_ value: String?) {
            guard let value else {
                body.writeStaticString("null")
                return
            }
            JSONText.writeString(value) { body.writeBytes($0) }
        }
        body.writeStaticString(#"{"action":"#)
        string(action.flatMap { $0 == .ignored ? nil : $0.rawValue })
        // Literals and the number apart: an interpolated field of over 15 bytes is a heap string.
        body.writeStaticString(#","attempts":"#)
        body.writeString(String(attempts))
        body.writeStaticString(#","device_id":"#)
        string(device_id)
        body.writeStaticString(#","maybe_delivered":"#)
        body.writeStaticString(maybe_delivered ? "true" : "false")
        body.writeStaticString(#","provider":"#)
        string(provider)
        body.writeStaticString(#","reason":"#)
        string(reason)
        body.writeStaticString(#","service_id":"#)
        string(service_id)
        body.writeStaticString(#","status":"#)
        string(status.rawValue)
        body.writeStaticString(#","token_hint":"#)
        string(token_hint)
        body.writeStaticString(#","type":"#)
        string(type)
        body.writeStaticString("}")
    }
}
