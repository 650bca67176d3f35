import RegistryCore
import TestSupport

/// A test server with the two providers most tests use: `ios` (APNs) and `android` (FCM).
func withDeviceServer<T>(
    _ options: TestServer.Options = TestServer.Options(), _ body: (TestServer) async throws -> T
) async throws -> T {
    try await withTestServer(options) { server in
        try await server.addProvider("ios", service: .apns, topic: "com.example.app")
        try await server.addProvider("android", service: .fcm, projectID: "example-project")
        return try await body(server)
    }
}
