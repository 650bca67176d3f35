/// A response body that writes its own JSON instead of going through JSONEncoder, for bodies
/// answered so often that JSONEncoder's cost (a boxed value per field, keys sorted again for
/// every object) shows in the service's CPU per request. `HTTPResponse.json` picks this over
/// the encoder whenever the value has it.
public protocol SelfWrittenJSON: Encodable {
    /// Byte for byte what the server's JSONEncoder writes for the value: keys sorted, `/` not
    /// escaped, no whitespace.
    var jsonBytes: [UInt8] { get }
}
