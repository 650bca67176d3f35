import Encodings
import RegistryCore
import RegistryCrypto

/// What "the same call event" compares for an event sent as a push job, whose users may arrive
/// as a stream too long to hold: SHA-256 of a marker line, the event's canonical form without
/// `user_ids`, then every user id as given, one per line. A JSON body and an NDJSON stream of
/// the same event and users give the same digest. The marker keeps it apart from `digest`, so an
/// id first posted for an answer with results and then as a job is a different event (409).
public final class CallEventJobDigest {
    private let hasher = SHA256Hasher()

    public init(_ event: CallEvent) {
        hasher.update("call-event-job\n")
        hasher.update(event.canonicalJSONWithoutUsers.bytes)
        hasher.update("\n")
    }

    public func add(_ users: some Sequence<UserID>) {
        var lines: [UInt8] = []
        for user in users {
            lines += user.value.utf8
            lines.append(UInt8(ascii: "\n"))
        }
        hasher.update(lines)
    }

    /// Hex, like `CallEvent.digest`; the digest is spent afterwards.
    public func finish() -> String { Hex.encode(hasher.finish()) }
}
