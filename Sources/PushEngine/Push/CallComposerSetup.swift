import CallPush
import RegistryCore
import Store

/// How a provider's call pushes are composed and which devices have payload keys: the one place
/// that reads a provider's `call_format` and `templates` and opens the devices' keys.
struct CallComposerSetup: Sendable {
    let payloadKeys: PayloadKeyStore
    private let sealer = AESGCMPayloadSealer()

    init(payloadKeys: PayloadKeyStore) {
        self.payloadKeys = payloadKeys
    }

    func composer(for provider: StoredProvider) -> CallPushComposer {
        CallPushComposer(format: provider.callFormat, templates: provider.templates, sealer: sealer)
    }

    /// The opened payload keys of those of `devices` that have one, by provider and token. Only
    /// providers whose format encrypts (`signalwire`) are asked: the others' keys stay sealed.
    func payloadKeys(of devices: [Device], providers: [ProviderName: StoredProvider]) async throws
        -> [ProviderName: [String: PayloadKey]]
    {
        let encrypting = Dictionary(grouping: devices.filter { providers[$0.provider]?.callFormat == .signalwire }) {
            $0.provider
        }
        var keys: [ProviderName: [String: PayloadKey]] = [:]
        for (provider, devices) in encrypting {
            keys[provider] = try await payloadKeys.payloadKeys(provider: provider, tokens: devices.map(\.token.value))
        }
        return keys
    }
}
