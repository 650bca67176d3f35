// swift-tools-version:6.0
import PackageDescription

// One target per layer; pure logic (RegistryCore) at the bottom, wiring (DeviceRegistry) at the top.
let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "DeviceRegistry",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "device-registry", targets: ["DeviceRegistry"]),
        // For tests and local setups only: the production image ships device-registry alone.
        .executable(name: "mock-push", targets: ["MockPushCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "Encodings", swiftSettings: swiftSettings),
        .target(name: "RegistryCore", dependencies: ["Encodings"], swiftSettings: swiftSettings),
        .target(name: "RegistryCrypto", dependencies: ["CCrypto", "Encodings"], swiftSettings: swiftSettings),
        // Call events and the payloads phones parse, pure but for the sealer's random IV.
        .target(
            name: "CallPush", dependencies: ["Encodings", "RegistryCore", "RegistryCrypto", "PushRules", "CZlib"],
            swiftSettings: swiftSettings),
        .target(name: "PushRules", dependencies: ["Encodings", "RegistryCore"], swiftSettings: swiftSettings),
        // The one waiter queue (FIFO, cancellation, one deadline watcher, a bound) and its clocks.
        .target(
            name: "Waiting",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "Postgres",
            dependencies: [
                "CLibPQ", "Encodings", "RegistryCrypto", "Waiting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "Store",
            dependencies: [
                "RegistryCore", "RegistryCrypto", "CallPush", "Postgres", "Waiting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "MockPush",
            dependencies: [
                "RegistryCore", "RegistryCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "PushDelivery",
            dependencies: [
                "Encodings", "RegistryCore", "RegistryCrypto", "PushRules", "Waiting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "HTTPServer",
            dependencies: [
                "Encodings",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings),
        // The push application layer: device selection, sending with feedback, call events, push
        // jobs. Below API, and knows nothing of HTTP.
        .target(
            name: "PushEngine",
            dependencies: [
                "Encodings", "RegistryCore", "Store", "PushDelivery", "PushRules", "CallPush", "Waiting",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "API",
            dependencies: [
                "Encodings", "RegistryCore", "Store", "HTTPServer", "RegistryCrypto", "PushDelivery", "PushRules",
                "CallPush", "PushEngine", "Postgres",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // openapi.yaml and Migrations/ compiled into the binary at build time; the files stay the source.
        .executableTarget(name: "ResourceEmbedder", swiftSettings: swiftSettings),
        .plugin(name: "EmbedResources", capability: .buildTool(), dependencies: ["ResourceEmbedder"]),
        .target(name: "EmbeddedResources", swiftSettings: swiftSettings, plugins: ["EmbedResources"]),
        .executableTarget(
            name: "DeviceRegistry",
            dependencies: [
                "API", "PushEngine", "Store", "Postgres", "HTTPServer", "Encodings", "RegistryCore", "RegistryCrypto",
                "CMalloc", "EmbeddedResources", "PushDelivery", "CallPush",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "MockPushCommand",
            dependencies: [
                "MockPush", "PushDelivery", "RegistryCore", "RegistryCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "TestSupport",
            dependencies: [
                "Postgres", "HTTPServer", "API", "PushEngine", "Store", "RegistryCore", "RegistryCrypto",
                "PushDelivery",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "EncodingsTests", dependencies: ["Encodings"], swiftSettings: swiftSettings),
        .testTarget(
            name: "WaitingTests",
            dependencies: ["Waiting", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "RegistryCoreTests", dependencies: ["Encodings", "RegistryCore"], swiftSettings: swiftSettings),
        .testTarget(name: "EmbeddedResourcesTests", dependencies: ["EmbeddedResources"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RegistryCryptoTests", dependencies: ["Encodings", "RegistryCrypto", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CallPushTests",
            dependencies: ["CallPush", "Encodings", "PushRules", "RegistryCore", "RegistryCrypto", "CZlib"],
            swiftSettings: swiftSettings),
        .target(
            name: "PushTestSupport", dependencies: ["MockPush", "RegistryCrypto", "TestSupport"],
            path: "Tests/PushTestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MockPushTests",
            dependencies: [
                "MockPush", "PushTestSupport", "RegistryCrypto", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PushDeliveryTests",
            dependencies: [
                "PushDelivery", "PushRules", "MockPush", "PushTestSupport", "RegistryCrypto", "RegistryCore",
                "TestSupport", "Waiting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PushRulesTests", dependencies: ["Encodings", "PushRules", "RegistryCore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: [
                "HTTPServer", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PostgresTests",
            dependencies: [
                "Postgres", "TestSupport", "Waiting", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "Store", "Postgres", "RegistryCore", "RegistryCrypto", "CallPush", "TestSupport", "Waiting",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PushEngineTests",
            dependencies: [
                "PushEngine", "CallPush", "Postgres", "PushDelivery", "PushRules", "RegistryCore", "RegistryCrypto",
                "Store", "TestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "APITests",
            dependencies: [
                "API", "PushEngine", "HTTPServer", "Postgres", "Store", "RegistryCore", "RegistryCrypto", "TestSupport",
                "PushDelivery", "CallPush",
                "PushRules", "PushTestSupport", "MockPush",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
    ]
)
