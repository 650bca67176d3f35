import ArgumentParser
import PushEngine

/// How `serve` takes in and works off push jobs, and how long finished ones are kept.
struct PushJobOptions: ParsableArguments {
    @Option(
        help:
            "Most devices live push jobs may have waiting, database-wide; past it a new job is answered 503. (env: PUSH_JOB_MAX_QUEUED, default: 2000000)"
    )
    var pushJobMaxQueued: Int?
    @Option(
        help:
            "Job pushes in flight to one provider from this instance; synchronous pushes are not counted. (env: PUSH_JOB_CONCURRENCY, default: 32)"
    )
    var pushJobConcurrency: Int?
    @Option(help: "Devices a worker claims at a time. (env: PUSH_JOB_BATCH, default: 500)")
    var pushJobBatch: Int?
    @Option(
        help:
            "Claims one instance works on at once; times the batch, what a crash may send twice. (env: PUSH_JOB_BATCHES, default: 4)"
    )
    var pushJobBatches: Int?
    @Option(
        help:
            "Seconds before a dead instance's claimed devices are taken over. (env: PUSH_JOB_LEASE_SECONDS, default: 5)"
    )
    var pushJobLeaseSeconds: Int?
    @Option(help: "Run push job workers in this instance. (env: PUSH_JOB_WORKERS, default: true)")
    var pushJobWorkers: Bool?
    @Option(
        help: "How long finished push jobs and their outcomes are kept, e.g. 7d. (env: PUSH_JOB_RETENTION, default: 7d)"
    )
    var pushJobRetention: String?

    func settings() throws -> PushJobSettings {
        var settings = PushJobSettings()
        let positive: (Int) -> Bool = { $0 > 0 }
        settings.maxQueued = try Setting.resolve(
            pushJobMaxQueued, env: "PUSH_JOB_MAX_QUEUED", default: settings.maxQueued, valid: positive,
            expected: "a positive number")
        settings.concurrency = try Setting.resolve(
            pushJobConcurrency, env: "PUSH_JOB_CONCURRENCY", default: settings.concurrency,
            valid: { (1...10_000).contains($0) }, expected: "1–10000")
        settings.batchSize = try Setting.resolve(
            pushJobBatch, env: "PUSH_JOB_BATCH", default: settings.batchSize, valid: { (1...10_000).contains($0) },
            expected: "1–10000")
        settings.parallelBatches = try Setting.resolve(
            pushJobBatches, env: "PUSH_JOB_BATCHES", default: settings.parallelBatches,
            valid: { (1...64).contains($0) }, expected: "1–64")
        let lease = try Setting.resolve(
            pushJobLeaseSeconds, env: "PUSH_JOB_LEASE_SECONDS", default: 5, valid: { (2...300).contains($0) },
            expected: "2–300")
        settings.lease = .seconds(lease)
        settings.renewEvery = min(.milliseconds(500), settings.lease / 4)
        settings.runsWorkers = try Setting.resolve(pushJobWorkers, env: "PUSH_JOB_WORKERS", default: true)
        return settings
    }

    /// Seconds finished jobs are kept.
    func retention() throws -> Double {
        try PruneCommand.age(
            Setting.optional(pushJobRetention, env: "PUSH_JOB_RETENTION") ?? "7d", option: "--push-job-retention")
    }
}
