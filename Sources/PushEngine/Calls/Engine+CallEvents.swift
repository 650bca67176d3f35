import CallPush
import Foundation
import RegistryCore

/// Call events as the API hands them in: sent at once (`CallEventDispatch`) or as a push job
/// (`CallEventJobIntake`), once per event id across instances.
extension Engine {
    /// `POST /v1/call-events`: the first post's results, or the earlier post's.
    package func post(_ event: CallEvent) async throws -> CallEventAnswer {
        try await CallEventDispatch(context: self).post(event)
    }

    /// A wake-up with an answer due within `budget` (the DialStack webhook); its sending goes on
    /// after the answer.
    package func wake(_ event: CallEvent, budget: Duration) async throws -> CallEventAnswer {
        try await CallEventDispatch(context: self).wake(event, budget: budget)
    }

    /// A call event as it stands; nil when none of that id is kept.
    package func callEvent(id: String) async throws -> CallEventAnswer? {
        guard let row = try await callEvents.find(id: id) else { return nil }
        return try CallEventAnswer(row, duplicate: nil)
    }

    /// A call event sent as a push job, its users `next` at a time until it returns nil.
    package func receiveJob(_ event: CallEvent, users next: () async throws -> [UserID]?) async throws
        -> CallEventJobAnswer
    {
        try await CallEventJobIntake(context: self).receive(event, users: next)
    }

    /// A call event sent as a push job with its users in `user_ids`.
    package func receiveJob(_ event: CallEvent) async throws -> CallEventJobAnswer {
        try await receiveJob(event, users: PushJobIntake.chunks(of: event.userIDs))
    }
}
