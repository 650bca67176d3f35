/// How push jobs are taken in and worked off; `serve` reads each from its `PUSH_JOB_*` variable.
public struct PushJobSettings: Sendable {
    /// Devices that live jobs may have waiting, database-wide; a job that would pass it is
    /// answered 503 with `Retry-After` (`PUSH_JOB_MAX_QUEUED`).
    public var maxQueued = 2_000_000
    /// Job pushes in flight to one provider from one instance (`PUSH_JOB_CONCURRENCY`). A
    /// synchronous push shares the provider's connections and the CPU with them, and waits
    /// behind about this many pushes' work: on the 2-core VM a synchronous push's p50 during a
    /// job was 46 ms at 128, 21 ms at 32 and 12 ms at 8, for 5,600, 5,000 and 4,300 job pushes/s.
    /// Measured again with rings at 200/s during a 300,000-device job (h2o sink, back to back on
    /// a loaded box): 128 gave no more pushes/s than 32 (9,294 against 10,158; main's build 9,079
    /// against 9,996) and rings' p99 twice as long (513 against 214 ms); 16 and 64 were within the
    /// load's noise of 32.
    public var concurrency = 32
    /// Devices one claim takes (`PUSH_JOB_BATCH`).
    public var batchSize = 500
    /// Claims one instance works on at once (`PUSH_JOB_BATCHES`). With `batchSize` it bounds
    /// what a crash may send twice: at most `batchSize × parallelBatches` pushes per instance.
    public var parallelBatches = 4
    /// How long a claim is an instance's alone without being renewed: how soon another instance
    /// takes over a dead one's devices (`PUSH_JOB_LEASE`).
    public var lease = Duration.seconds(5)
    /// Claims are renewed this often, which is also how soon a worker on another instance hears of
    /// a cancel.
    public var renewEvery = Duration.milliseconds(500)
    /// How often an idle worker looks for new jobs.
    public var pollEvery = Duration.milliseconds(200)
    /// One push's own limit within its job's deadline (retries included).
    public var pushTimeout = Duration.seconds(30)
    /// Whether this instance runs workers at all (`PUSH_JOB_WORKERS=false` makes an API-only one).
    public var runsWorkers = true

    public init() {}
}
