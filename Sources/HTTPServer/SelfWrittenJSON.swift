import NIOCore

/// A response body that writes its own JSON instead of going through JSONEncoder, for bodies
/// answered so often that JSONEncoder's cost (a boxed value per field, keys sorted again for
/// every object) shows in the service's CPU per request. `HTTPResponse.json` picks this over
/// the encoder whenever the value has it.
public protocol SelfWrittenJSON: Encodable {
    /// Writes byte for byte what the server's JSONEncoder writes for the value (keys sorted, `/`
    /// not escaped, no whitespace) into the response body: no array to copy it from.
    func writeJSON(to body: inout ByteBuffer)

    /// About how many bytes `writeJSON` writes, so the body is allocated once.
    var jsonCapacity: Int { get }
}
