import Encodings
import HTTPServer
import Store

/// A push job as `GET /v1/push-jobs/{id}` answers it (openapi.yaml `PushJob`). `counts` add up
/// to `total`; `unsent` is what a cancel or the deadline left, and is in no other count.
struct PushJobBody: Encodable {
    struct Counts: Encodable {
        let sent: Int
        let token_invalid: Int
        let rejected: Int
        let failed: Int
        let expired: Int
        let skipped: Int
        let pending: Int
        let unsent: Int
    }

    let id: String
    let kind: String
    let status: String
    let total: Int
    let counts: Counts
    let created_at: String
    let deadline: String
    let started_at: String?
    let finished_at: String?

    /// 202 with the job and where to follow it.
    static func accepted(_ job: PushJob) -> HTTPResponse {
        .json(PushJobBody(job), status: .accepted, headers: ["Location": "/v1/push-jobs/\(job.id)"])
    }

    init(_ job: PushJob) {
        id = job.id
        kind = job.kind
        status = job.status.rawValue
        total = job.counts.total
        // Once a job is over nothing more is sent, so what it still had pending is unsent.
        let over = job.status == .cancelled || job.status == .expired
        counts = Counts(
            sent: job.counts.sent, token_invalid: job.counts.tokenInvalid, rejected: job.counts.rejected,
            failed: job.counts.failed, expired: job.counts.expired, skipped: job.counts.skipped,
            pending: over ? 0 : job.counts.pending, unsent: over ? job.counts.pending : 0)
        created_at = RFC3339.format(job.createdAt)
        deadline = RFC3339.format(job.deadlineAt)
        started_at = job.startedAt.map(RFC3339.format)
        finished_at = job.finishedAt.map(RFC3339.format)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(status, forKey: .status)
        try container.encode(total, forKey: .total)
        try container.encode(counts, forKey: .counts)
        try container.encode(created_at, forKey: .created_at)
        try container.encode(deadline, forKey: .deadline)
        try container.encode(started_at, forKey: .started_at)
        try container.encode(finished_at, forKey: .finished_at)
    }
    private enum CodingKeys: String, CodingKey {
        case id, kind, status, total, counts, created_at, deadline, started_at, finished_at
    }
}
