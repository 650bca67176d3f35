import NIOCore

/// Runs a request's handler task on the event loop that owns its connection. Without it every
/// request hops from the loop to the global executor and back (two thread wake-ups each way),
/// which on two cores cost more CPU than the handlers themselves. Handlers never block: database
/// work runs on the pool's own threads.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
