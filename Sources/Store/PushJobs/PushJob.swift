import Foundation
import RegistryCore

/// A push job as `GET /v1/push-jobs/{id}` shows it. The counters always add up to `total`:
/// `pending` is what is still to be sent, and what a cancel or the deadline left unsent stays in
/// it (the API reports it as `unsent` once the job is over).
public struct PushJob: Sendable {
    public enum Status: String, Sendable {
        case receiving, queued, running, done, cancelled, expired
    }

    public struct Counts: Sendable, Equatable {
        public var total = 0
        public var pending = 0
        public var sent = 0
        public var tokenInvalid = 0
        public var rejected = 0
        public var failed = 0
        public var expired = 0
        public var skipped = 0
        public init() {}
    }

    public let id: String
    public let kind: String
    public let status: Status
    public let counts: Counts
    public let createdAt: Date
    public let deadlineAt: Date
    public let startedAt: Date?
    public let finishedAt: Date?
}

/// What a worker needs of a live job to send it: its payload as stored, and when it ends.
public struct LivePushJob: Sendable {
    public let id: String
    public let kind: String
    /// The payload's JSON text.
    public let payload: String
    public let createdAt: Date
    public let deadlineAt: Date
}

/// A batch of a job's devices one worker claimed, under one claim number and a lease: the
/// devices of the batch with no outcome yet. `device` is nil for a device deleted since the job
/// was accepted.
public struct PushJobClaim: Sendable {
    public struct Delivery: Sendable {
        public let deviceID: Int64
        public let device: Device?
    }

    public let job: String
    /// The batch's number within the job.
    let batch: Int64
    public let number: Int64
    public let deliveries: [Delivery]
}

/// One device's outcome, as a worker records it.
public struct PushResultRecord: Sendable {
    public let deviceID: Int64
    /// `sent`, `token_invalid`, `rejected`, `failed`, `expired` or `skipped`.
    public let status: String
    public let reason: String?
    public let serviceID: String?

    public init(deviceID: Int64, status: String, reason: String?, serviceID: String?) {
        self.deviceID = deviceID
        self.status = status
        self.reason = reason
        self.serviceID = serviceID
    }
}
