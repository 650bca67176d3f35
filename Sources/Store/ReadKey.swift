import RegistryCore

/// The keys `ReadReplica` notes this instance's commits under: a read of a user's devices waits
/// for the instance's writes to that user, a lookup by token for its writes to that token. Other
/// users' writes leave such a read on the replica.
enum ReadKey {
    static func user(_ id: String) -> String { "user:" + id }

    /// Tokens are looked up without regard to case (`TokenLookup`), so keyed alike.
    static func token(_ token: String) -> String { "token:" + token.lowercased() }

    static func of(_ registration: DeviceRegistration) -> [String] {
        [user(registration.userID.value), token(registration.token.value)]
    }
}

extension WriteOperation {
    /// What a read must wait for once this operation has committed.
    var readKeys: [String] {
        switch self {
        case .register(let registration, _): ReadKey.of(registration)
        case .unregister(let user, let token, _): [ReadKey.user(user.value), ReadKey.token(token)]
        case .callEvent: []  // A call event's row is never read from the replica.
        }
    }
}
