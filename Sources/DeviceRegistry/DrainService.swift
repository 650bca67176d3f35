import API
import Logging
import ServiceLifecycle

/// On graceful shutdown, turns `/readyz` to 503 and waits `SHUTDOWN_DRAIN_SECONDS` before the
/// listeners close, so load balancers stop routing here while the port still answers. Listed
/// after the servers in the group, so it is shut down (and waited for) before them.
struct DrainService: Service {
    let state: ServingState
    let drain: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group is stopping at once, nothing to drain
        }
        state.startDraining()
        guard drain > .zero else { return }
        logger.info("draining: /readyz answers 503 until the listener closes", metadata: ["drain": "\(drain)"])
        // A cancellation (the group cancelled) ends the drain early; the servers then close at once.
        try? await Task.sleep(for: drain)
    }
}
