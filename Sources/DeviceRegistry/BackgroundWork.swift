import ServiceLifecycle

/// Work that runs beside the server until shutdown (cancelled on graceful shutdown).
struct BackgroundWork: Service {
    let work: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown { await work() }
    }
}
