import Foundation
import Postgres

/// A ring's writes to its call event, as group-commit items (`WriteOperation.callEvent`).
enum CallEventWrite: Sendable {
    case claim(CallEventHandOver, deadline: Date)
    case finish(id: String, resultJSON: String, jobID: String?)

    var statement: PostgresStatement {
        switch self {
        case .claim(let event, let deadline): CallEventStore.claimStatement(event, deadline: deadline, job: nil)
        case .finish(let id, let resultJSON, let jobID):
            CallEventStore.finishStatement(id: id, resultJSON: resultJSON, jobID: jobID)
        }
    }

    func outcome(of result: PostgresResult) throws -> CallEventWriteOutcome {
        switch self {
        case .claim: .claimed(try CallEventStore.claim(of: result))
        case .finish: .finished
        }
    }

    /// The advisory-lock key `claim_call_event()` takes: a batch takes it first, in its global
    /// order, so two batches claiming the same ids queue rather than deadlock.
    var lockName: String {
        switch self {
        case .claim(let event, _): "call_event:" + event.id
        case .finish(let id, _, _): "call_event:" + id
        }
    }
}

enum CallEventWriteOutcome: Sendable {
    case claimed(CallEventClaim)
    case finished

    var claim: CallEventClaim {
        guard case .claimed(let claim) = self else { preconditionFailure("a claim answers with a claim") }
        return claim
    }
}
