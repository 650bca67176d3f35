import Encodings

/// Path segments and query components are decoded by the one percent-decoder every layer shares
/// (the SIP parser in RegistryCore uses it too); this name keeps the HTTP layer's call sites.
typealias PercentDecoding = Encodings.PercentDecoding
