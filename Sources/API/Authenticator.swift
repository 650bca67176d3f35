import HTTPServer
import RegistryCore
import RegistryCrypto
import Store

/// Who is calling: the key's id (for logs, never the key) and what it may do.
struct Caller: Sendable {
    let keyID: String
    let scopes: Set<APIKeyScope>
    /// `key_id` for the access log, made once per key looked up (the cache keeps the caller):
    /// set into each response's empty metadata, a dictionary was made per request.
    let logMetadata: [String: String]

    init(keyID: String, scopes: Set<APIKeyScope>) {
        self.keyID = keyID
        self.scopes = scopes
        logMetadata = ["key_id": keyID]
    }
}

extension HTTPResponse {
    /// The caller's key id in the access log line, beside any metadata the route set.
    mutating func logKeyID(of caller: Caller) {
        if logMetadata.isEmpty {
            logMetadata = caller.logMetadata
        } else {
            logMetadata["key_id"] = caller.keyID
        }
    }
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
    /// knows the key, else the digest of the secret to look up (`lookUp`).
    enum Presented {
        case known(Caller)
        case unknown(secretDigest: SHA256.Digest)
    }

    /// Throws `.unauthenticated` (401) for a missing, malformed, unknown or revoked key, 429 instead
    /// once the client has presented too many bad keys, `.forbidden` (403) for a key without
    /// `scope`. A valid key is never answered 429: the key is checked first, so the limiter only
    /// slows down clients that guess, not every client behind the same address.
    func authenticate(_ request: HTTPRequest, requiring scope: APIKeyScope) async throws -> Caller {
        switch try presented(request, requiring: scope) {
        case .known(let caller): return caller
        case .unknown(let secretDigest): return try await lookUp(secretDigest, for: request, requiring: scope)
        }
    }

    /// `authenticate`'s checks that need no database: throws as it does, except for a key the
    /// cache does not know.
    ///
    /// The cache is looked up by the SHA-256 of the credentials' bytes, hashed where they lie in
    /// the header: a cached key costs no allocation (parsing it into an `APIKeySecret` and hashing
    /// that into a hex string cost seven per request). Only well-formed keys are ever cached (a
    /// key is stored after `APIKeySecret.parse` and the database accepted it), so a digest the
    /// cache knows is of a well-formed key, and only a key it does not know is parsed.
    func presented(_ request: HTTPRequest, requiring scope: APIKeyScope) throws -> Presented {
        guard let header = request.headers.first(name: "Authorization") else { throw RegistryError.unauthenticated }
        guard let credentials = Self.bearer(header) else { throw refusal(request) }
        let secretDigest = SHA256.digest(credentials)
        if let cached = cache.caller(for: secretDigest) { return .known(try admitted(cached, requiring: scope)) }
        guard APIKeySecret.parse(String(credentials)) != nil else { throw refusal(request) }
        return .unknown(secretDigest: secretDigest)
    }

    /// The rest of `authenticate` for a key the cache did not know: the database's answer.
    func lookUp(_ secretDigest: SHA256.Digest, for request: HTTPRequest, requiring scope: APIKeyScope)
        async throws -> Caller
    {
        let generation = cache.generation
        guard let key = try await keys.authenticate(secretHash: secretDigest.hex) else { throw refusal(request) }
        let caller = Caller(keyID: key.id, scopes: key.scopes)
        cache.store(caller, for: secretDigest, lookedUpAt: generation)
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

    /// The credentials of `Bearer <credentials>` (scheme case-insensitive, one space), in place.
    static func bearer(_ header: String) -> Substring? {
        guard let space = header.utf8.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let credentials = header[header.utf8.index(after: space)...]
        guard equalIgnoringASCIICase(header.utf8[..<space], "bearer".utf8), !credentials.isEmpty else { return nil }
        return credentials
    }
}
