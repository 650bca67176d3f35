import Encodings

/// A secret sealed with AES-256-GCM, as stored: `v1.<key id>.<nonce>.<ciphertext>.<tag>`, the
/// last three in base64url. Text, so it fits any column and survives copy and paste.
struct SealedSecret: Equatable {
    static let version = "v1"

    let keyID: String
    let nonce: [UInt8]
    let box: AESGCM.Box

    init(keyID: String, nonce: [UInt8], box: AESGCM.Box) {
        self.keyID = keyID
        self.nonce = nonce
        self.box = box
    }

    /// Nil unless `text` has the `v1` shape with a 12-byte nonce and a 16-byte tag.
    init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == Self.version, !parts[1].isEmpty,
            let nonce = Base64URL.decode(parts[2]), nonce.count == AESGCM.nonceLength,
            let ciphertext = Base64URL.decode(parts[3]),
            let tag = Base64URL.decode(parts[4]), tag.count == AESGCM.tagLength
        else { return nil }
        self.init(keyID: parts[1], nonce: nonce, box: AESGCM.Box(ciphertext: ciphertext, tag: tag))
    }

    var text: String {
        [Self.version, keyID, Base64URL.encode(nonce), Base64URL.encode(box.ciphertext), Base64URL.encode(box.tag)]
            .joined(separator: ".")
    }

    /// What the tag authenticates besides the ciphertext: the format version, the key id and the
    /// caller's context (e.g. which provider the secret belongs to), so a sealed value copied
    /// into another row, or relabelled with another key id, fails to open.
    static func additionalData(keyID: String, context: String) -> [UInt8] {
        Array("DeviceRegistry sealed secret \(version)\u{0}\(keyID)\u{0}\(context)".utf8)
    }
}
