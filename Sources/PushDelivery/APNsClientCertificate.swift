import Foundation
import NIOSSL
import RegistryCrypto

/// An APNs client certificate and its private key, for certificate authentication: presented in
/// each connection's TLS handshake instead of a provider token in each request. Apple issues
/// "Apple Push Notification service SSL" certificates and the "VoIP Services" certificate that
/// SignalWire tells its users to generate (which covers the bundle id, its `.voip` and its
/// `.complication` topics); both are exported from the Keychain as a `.p12`.
///
/// Constructed only valid: the certificates are readable and the key is the first one's. Expiry
/// is a fact here, not a refusal: a stored certificate that has expired since must still load so
/// `/readyz` can say so; `ProviderCredentials.parse` refuses an expired one when it is written.
public struct APNsClientCertificate: Sendable {
    /// The leaf first, then any intermediates, as presented in the handshake.
    let chain: [NIOSSLCertificate]
    let key: SigningKey
    let tlsKey: NIOSSLPrivateKey
    public let notValidAfter: Date
    /// What the certificate may push to: Apple's topics extension, else the subject's UID (the
    /// bundle id of older certificates); empty when it names neither.
    public let topics: [String]
    /// The subject's OU, where Apple puts the team id.
    public let teamID: String?
    /// `SHA256:` and the unpadded base64url SHA-256 of the leaf certificate's DER: a renewed
    /// certificate shows a new one even when it reuses its key.
    public let fingerprint: String

    /// The certificate (then any intermediates) and its unencrypted private key, both PEM.
    public init(certificatePEM: String, privateKeyPEM: String) throws(APNsCertificateError) {
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)), !chain.isEmpty else {
            throw .certificateUnreadable
        }
        try self.init(
            chain: chain,
            key: try Self.loadKey { algorithm throws(KeyError) in
                try SigningKey(pem: privateKeyPEM, algorithm: algorithm)
            })
    }

    /// A `.p12` archive's bytes; `password` nil or empty for one exported without.
    public init(pkcs12: [UInt8], password: String?) throws(APNsCertificateError) {
        let archive: PKCS12Archive
        do throws(PKCS12Error) {
            archive = try PKCS12Archive(der: pkcs12, password: password)
        } catch {
            throw .archive(error)
        }
        guard let chain = try? archive.certificates.map({ try NIOSSLCertificate(bytes: $0, format: .der) }) else {
            throw .archive(.unreadable)
        }
        try self.init(
            chain: chain,
            key: try Self.loadKey { algorithm throws(KeyError) in
                try SigningKey(der: archive.privateKeyDER, algorithm: algorithm)
            })
    }

    private init(chain: [NIOSSLCertificate], key: SigningKey) throws(APNsCertificateError) {
        let leaf = chain[0]
        guard let publicKey = try? leaf.extractPublicKey().toSPKIBytes(),
            let certified = try? VerifyingKey(der: publicKey, algorithm: key.algorithm).fingerprint(),
            let own = try? key.verifyingKey().fingerprint(), certified == own
        else { throw .keyMismatch }
        guard let pem = try? key.pkcs8PEM(), let tlsKey = try? NIOSSLPrivateKey(bytes: Array(pem.utf8), format: .pem),
            let der = try? leaf.toDERBytes()
        else { throw .unusable }
        self.chain = chain
        self.key = key
        self.tlsKey = tlsKey
        notValidAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        let topicsOID = NIOSSLObjectIdentifier(APNsCertificateTopics.extensionOID)
        let listed = leaf._extensions.first { $0.objectIdentifier == topicsOID }.flatMap { topics in
            APNsCertificateTopics.parse(topics.data.withUnsafeBufferPointer { Array($0) })
        }
        let subject = leaf.subjectName
        topics = listed ?? subject.filter { $0.type == .userId }.map(\.value)
        teamID = subject.first { $0.type == .organizationalUnit }?.value
        fingerprint = "SHA256:" + Self.base64URL(SHA256.hash(der))
    }

    /// Apple's keys are RSA; an EC P-256 key is taken too.
    private static func loadKey(_ load: (RegistryCrypto.SignatureAlgorithm) throws(KeyError) -> SigningKey)
        throws(APNsCertificateError) -> SigningKey
    {
        do throws(KeyError) {
            return try load(.rs256)
        } catch .tooShort(let bits) {
            throw .keyUnreadable(.tooShort(bits: bits))
        } catch {
            guard let key = try? load(.es256) else { throw .keyUnreadable(error) }
            return key
        }
    }

    /// Whether the certificate may push to `topic` (a bundle id, or its `.voip` or
    /// `.complication` topic). One that names no topics is left for APNs to judge.
    public func covers(_ topic: String) -> Bool {
        topics.isEmpty || topics.contains(topic)
    }

    /// The certificates and the key in PEM, what `init(certificatePEM:privateKeyPEM:)` reads:
    /// the stored form, whatever form was uploaded (a `.p12` password is not kept). Contains the
    /// private key: seal it at once, never log or answer it.
    public func pem() throws -> (certificate: String, privateKey: String) {
        let certificates = try chain.map { certificate in
            let lines = try Data(certificate.toDERBytes()).base64EncodedString(options: [
                .lineLength64Characters, .endLineWithLineFeed,
            ])
            return "-----BEGIN CERTIFICATE-----\n\(lines)\n-----END CERTIFICATE-----\n"
        }
        return (certificates.joined(), try key.pkcs8PEM())
    }

    /// The identity a TLS client configuration presents.
    var tlsIdentity: (chain: [NIOSSLCertificateSource], key: NIOSSLPrivateKeySource) {
        (chain.map { .certificate($0) }, .privateKey(tlsKey))
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        String(
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").prefix { $0 != "=" })
    }
}
