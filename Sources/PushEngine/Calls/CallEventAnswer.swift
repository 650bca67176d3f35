import Encodings
import Foundation
import Store

/// A call event's answer: `POST /v1/call-events`, the DialStack webhook and
/// `GET /v1/call-events/{id}` (which leaves `duplicate` out).
package struct CallEventAnswer: Encodable {
    /// `running` (still sending), `done`, or `abandoned`: its first poster stopped before
    /// recording results, and nothing more is sent for it.
    enum State: String, Encodable {
        case running, done, abandoned
    }

    let id: String
    let type: String
    let state: State
    /// Whether this post found the event already posted; nil in history answers.
    package let duplicate: Bool?
    let created_at: String
    let finished_at: String?
    /// The push job that sends an event posted as a job (whose devices' outcomes are the job's);
    /// nil otherwise.
    let job_id: String?
    package let results: [PushResult]

    /// The answer for `row` as it stands at `now`; results as the first poster stored them.
    init(_ row: StoredCallEvent, duplicate: Bool?, now: Date = Date()) throws {
        id = row.id
        type = row.type
        state = row.state == .done ? .done : row.isAbandoned(at: now) ? .abandoned : .running
        self.duplicate = duplicate
        created_at = RFC3339.format(row.createdAt)
        finished_at = row.finishedAt.map(RFC3339.format)
        job_id = row.jobID
        results = try row.resultJSON.map { try JSONDecoder().decode([PushResult].self, from: Data($0.utf8)) } ?? []
    }

    /// The first poster's answer: its own results, before they are read back.
    init(_ row: StoredCallEvent, results: [PushResult], finishedAt: Date) {
        id = row.id
        type = row.type
        state = .done
        duplicate = false
        created_at = RFC3339.format(row.createdAt)
        finished_at = RFC3339.format(finishedAt)
        job_id = nil
        self.results = results
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(duplicate, forKey: .duplicate)
        try container.encode(created_at, forKey: .created_at)
        try container.encode(finished_at, forKey: .finished_at)
        try container.encodeIfPresent(job_id, forKey: .job_id)
        try container.encode(results, forKey: .results)
    }
    private enum CodingKeys: String, CodingKey {
        case id, type, state, duplicate, created_at, finished_at, job_id, results
    }
}
