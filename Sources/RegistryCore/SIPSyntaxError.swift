/// A syntax problem in a contact; `SIPContact.parse` reports it on the `contact` field.
struct SIPSyntaxError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
