import CallPush
import RegistryCore
import Store

/// How a provider's call pushes are composed and which devices have payload keys: the one place
/// that reads a provider's `call_format` and `templates` and the devices' keys. Until providers
/// carry them, every provider renders the Stream format without templates and no payload is
/// encrypted.
struct CallComposerSetup: Sendable {
    private let sealer = AESGCMPayloadSealer()

    func composer(for provider: StoredProvider) -> CallPushComposer {
        CallPushComposer(format: .stream, templates: .none, sealer: sealer)
    }

    /// The payload keys of those of `devices` that have one, by token.
    func payloadKeys(of devices: [Device]) async throws -> [String: PayloadKey] {
        [:]
    }
}
