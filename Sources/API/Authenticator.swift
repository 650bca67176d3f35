import HTTPServer
import RegistryCore
import RegistryCrypto
import Store

/// Who is calling: the key's id (for logs, never the key) and what it may do.
struct Caller: Sendable {
    let keyID: String
    let scopes: Set<APIKeyScope>
}

/// Bearer-key authentication for every /v1 route. Keys come only from the Authorization header,
/// never the query string. Live keys are cached only while key changes are being listened for
/// (see `KeyCache`), so a revocation is in force on the next request.
struct Authenticator: Sendable {
    let keys: APIKeyStore
    let limiter: BadKeyLimiter
    let cache: KeyCache
    let trustedProxies: TrustedProxies

    /// What the presented key says without a database round trip: the caller when the cache
    /// knows the key, else the secret's hash to look up (`lookUp`).
    enum Presented {
        case known(Caller)
        case unknown(secretHash: String)
    }

    /// Throws `.unauthenticated` (401) for a missing, malformed, unknown or revoked key, 429 instead
    /// once the client has presented too many bad keys, `.forbidden` (403) for a key without
    /// `scope`. A valid key is never answered 429: the key is checked first, so the limiter only
    /// slows down clients that guess, not every client behind the same address.
    func authenticate(_ request: HTTPRequest, requiring scope: APIKeyScope) async throws -> Caller {
        switch try presented(request, requiring: scope) {
        case .known(let caller): return caller
        case .unknown(let secretHash): return try await lookUp(secretHash, for: request, requiring: scope)
        }
    }

    /// `authenticate`'s checks that need no database: throws as it does, except for a key the
    /// cache does not know.
    func presented(_ request: HTTPRequest, requiring scope: APIKeyScope) throws -> Presented {
        guard let header = request.headers.first(name: "Authorization") else { throw RegistryError.unauthenticated }
        guard let presented = Self.bearer(header), let secret = APIKeySecret.parse(presented) else {
            throw refusal(request)
        }
        let secretHash = secret.hashHex
        guard let cached = cache.caller(for: secretHash) else { return .unknown(secretHash: secretHash) }
        return .known(try admitted(cached, requiring: scope))
    }

    /// The rest of `authenticate` for a key the cache did not know: the database's answer.
    func lookUp(_ secretHash: String, for request: HTTPRequest, requiring scope: APIKeyScope) async throws -> Caller {
        let generation = cache.generation
        guard let key = try await keys.authenticate(secretHash: secretHash) else { throw refusal(request) }
        let caller = Caller(keyID: key.id, scopes: key.scopes)
        cache.store(caller, for: secretHash, lookedUpAt: generation)
        return try admitted(caller, requiring: scope)
    }

    private func admitted(_ caller: Caller, requiring scope: APIKeyScope) throws -> Caller {
        guard caller.scopes.allows(scope) else { throw RegistryError.forbidden(required: scope) }
        return caller
    }

    /// A bad key: 401, or 429 once this client has presented too many.
    private func refusal(_ request: HTTPRequest) -> any Error {
        let client = trustedProxies.client(peer: request.remoteAddress, headers: request.headers)
        if let wait = limiter.retryAfter(client: client) {
            return APIFailure.tooManyBadKeys(retryAfterSeconds: wait)
        }
        limiter.recordFailure(client: client)
        return RegistryError.unauthenticated
    }

    /// The credentials of `Bearer <credentials>` (scheme case-insensitive, one space).
    static func bearer(_ header: String) -> String? {
        // Found in place: splitting made an array of parts for every request.
        guard let space = header.utf8.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let credentials = header[header.utf8.index(after: space)...]
        guard header[..<space].lowercased() == "bearer", !credentials.isEmpty else { return nil }
        return String(credentials)
    }
}
