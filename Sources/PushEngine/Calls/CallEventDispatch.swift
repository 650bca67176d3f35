import CallPush
import Foundation
import RegistryCore
import Store

/// Runs each call event id once across every instance: the first poster claims the id in the
/// database and sends; a post of the same id with the same body answers the first one's result
/// (`duplicate`), with another body is 409. See `CallEventStore` for the window.
struct CallEventDispatch {
    let context: Engine

    /// `POST /v1/call-events`: the first post's results, or the earlier post's. A duplicate that
    /// arrives while the first is still sending waits for it, at most until its deadline and the
    /// abandon margin; a first poster that died meanwhile is answered `abandoned`.
    func post(_ event: CallEvent) async throws -> CallEventAnswer {
        let timeline = RingTimeline()
        // The push job gives way meanwhile (`JobLanes`).
        return try await context.ringsInFlight.during { try await ringing(event, timeline) }
    }

    private func ringing(_ event: CallEvent, _ timeline: RingTimeline) async throws -> CallEventAnswer {
        try await Self.urgently { [self] in
            while true {
                let (found, devices, committed) = try await claim(event, timeline)
                switch found {
                case .claimed(let row):
                    let answer = try await start(event, row, devices, committed, timeline).recorded.value
                    timeline.reach(.answered)
                    return answer
                case .existing(let row):
                    try await committed.value
                    try Self.checkSameEvent(event, digest: event.digest, row)
                    // Gone while waited on: its first poster gave the id back having sent nothing
                    // (it could not read the providers), so this post claims it again and sends.
                    guard let settled = try await settled(row) else { continue }
                    return try duplicate(event, settled)
                }
            }
        }
    }

    /// The row once its first poster has finished, or once it is taken for abandoned; nil when
    /// the row is gone (given back, or pruned) or its poster's lease lapsed (it died): then this
    /// post claims it again, and sends.
    private func settled(_ row: StoredCallEvent) async throws -> StoredCallEvent? {
        var row = row
        var pause = Duration.milliseconds(5)
        while row.state == .running, !row.isAbandoned(at: Date()) {
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(200))
            guard let current = try await context.callEvents.find(id: row.id), !current.isTakeable(at: Date()) else {
                return nil
            }
            row = current
        }
        return row
    }

    /// The DialStack webhook: answers within `budget` whatever the push services do, as soon as
    /// the pushes are out and the claim is committed (a redelivery never rings again; every 2xx
    /// means committed). The pushes leave once the claim's statements have answered, while their
    /// COMMIT is still under way: a COMMIT that then fails is answered as an error, the phone
    /// having rung (docs/sending-and-ringing.md, "A ring's claim and its push"). DialStack only
    /// needs the 200, so the results are recorded after the answer (`EngineTasks`), off the
    /// ring's path. A first post that has not finished by then goes on and records its results;
    /// a redelivery is answered at once from what is stored, unless the first poster died holding
    /// the event: then the redelivery rings (`CallEventStore.claim`).
    func wake(_ event: CallEvent, budget: Duration) async throws -> CallEventAnswer {
        let timeline = RingTimeline()
        // The push job gives way until the answer (`JobLanes`).
        return try await context.ringsInFlight.during { try await waking(event, budget: budget, timeline) }
    }

    private func waking(_ event: CallEvent, budget: Duration, _ timeline: RingTimeline) async throws
        -> CallEventAnswer
    {
        try await Self.urgently { [self] in
            let (found, devices, committed) = try await claim(event, timeline)
            switch found {
            case .claimed(let row):
                let sending = start(event, row, devices, committed, timeline)
                try await committed.value
                let answer =
                    try await BoundedWait.value(of: sending.sent, within: budget)
                    ?? CallEventAnswer(row, duplicate: false)
                timeline.reach(.answered)
                return answer
            case .existing(let row):
                try await committed.value
                try Self.checkSameEvent(event, digest: event.digest, row)
                return try duplicate(event, row)
            }
        }
    }

    /// Claims the event's id and reads its users' devices in one round trip
    /// (`CallEventStore.claimReadingDevices`): the devices come once the claim's statements have
    /// answered, its COMMIT still under way (`committed`).
    private func claim(_ event: CallEvent, _ timeline: RingTimeline) async throws
        -> (CallEventClaim, [Device], committed: Task<Void, any Error>)
    {
        let deadline = CallEventSending.deadline(of: event, now: Date())
        let ring = try await context.callEvents.claimReadingDevices(
            id: event.id, digest: event.digest, type: event.type.rawValue, deadline: deadline, of: event.userIDs)
        timeline.reach(.claimAsked, at: ring.times.asked)
        timeline.reach(.connected, at: ring.times.connected)
        timeline.reach(.serverBegan, at: ring.times.began)
        timeline.reach(.serverRead, at: ring.times.read)
        timeline.reach(.devicesRead)
        return (ring.claim, Engine.targets(of: event.userIDs, among: ring.devices), ring.committed)
    }

    /// A first post's work: `sent` ends once its pushes are out, `recorded` once their results
    /// are stored too.
    private struct Sending {
        let sent: Task<CallEventAnswer, any Error>
        let recorded: Task<CallEventAnswer, any Error>
    }

    /// Sends, then records, in tasks of their own that shutdown waits for (`EngineTasks`), so a
    /// client that hangs up, a webhook answered early or a deploy does not cut pushes half-way or
    /// leave the id running; the claim's lease is renewed while sending. Sending starts before the
    /// claim's COMMIT has answered (`committed`); recording waits for it. Sending stops at the
    /// row's deadline (a taken-over event keeps its first claim's). When the providers cannot be
    /// read, nothing was sent: the id is given back and the failure thrown (503), so a retry sends.
    private func start(
        _ event: CallEvent, _ row: StoredCallEvent, _ devices: [Device], _ committed: Task<Void, any Error>,
        _ timeline: RingTimeline
    ) -> Sending {
        let sent = context.tasks.start { [context] in
            try await Self.urgently {
                try await Self.send(event, row, devices, committed, timeline, context: context)
            }
        }
        let recorded = context.tasks.start { [context] in
            try await Self.urgently {
                do {
                    try await committed.value
                } catch {
                    // The pushes are on their way and the claim is not recorded: there is nothing
                    // to record their results on. The caller is answered this error; a retry
                    // claims the id afresh and rings again (see `wake`).
                    context.logger.warning(
                        "a call event's claim was not committed after its pushes started; a retry sends again",
                        metadata: ["type": "\(event.type.rawValue)", "error": "\(error)"])
                    throw error
                }
                timeline.reach(.claimed)
                let answer = try await sent.value
                let json = String(decoding: try JSONEncoder().encode(answer.results), as: UTF8.self)
                // Pushes went out: a failure to record them is a 503 (to a post; a webhook has
                // had its answer) whose retry finds the id running and, after its deadline,
                // abandoned — never a second ring.
                do {
                    try await context.callEvents.finish(id: event.id, resultJSON: json)
                } catch {
                    context.logger.warning(
                        "a call event's results were not recorded; it will read as abandoned",
                        metadata: ["type": "\(event.type.rawValue)", "error": "\(error)"])
                    throw error
                }
                return answer
            }
        }
        return Sending(sent: sent, recorded: recorded)
    }

    /// Rings run above the push jobs' priority, from the claim on (its answer, and the devices
    /// read beside it, resume the ring there too). On Linux each task priority has threads of its
    /// own: at one priority, every step of a ring (each await's continuation) waited for a thread
    /// behind the job's pushes' continuations (a task hopping 8 times behind 64 busy tasks: 70 ms
    /// at p50, 0.09 ms at a higher priority than theirs). And on the global executor: a request's
    /// handler runs on its connection's event loop (`EventLoopTaskExecutor`), a child task
    /// inherits that preference and a loop knows no priorities, so each step of the ring queued
    /// there behind the loop's share of the push connections' I/O for the job.
    private static func urgently<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask(executorPreference: globalConcurrentExecutor, priority: .high) { try await body() }
            guard let value = try await group.next() else { throw CancellationError() }
            return value
        }
    }

    private static func send(
        _ event: CallEvent, _ row: StoredCallEvent, _ devices: [Device], _ committed: Task<Void, any Error>,
        _ timeline: RingTimeline, context: Engine
    ) async throws -> CallEventAnswer {
        CallEventMetrics.event(event.type, .sent)
        let results: [PushResult]
        do {
            results = try await Self.keepingLease(on: row.id, context: context) {
                try await CallEventSending(event: event, context: context, timeline: timeline)
                    .run(to: devices, until: row.deadline)
            }
        } catch {
            // Only a committed claim can be given back (before it, the row is not there to delete).
            if (try? await committed.value) != nil { try? await context.callEvents.release(id: event.id) }
            throw error
        }
        return CallEventAnswer(row, results: results, finishedAt: Date())
    }

    /// `body`'s value, the lease on event `id` renewed every quarter lease until it returns. A
    /// renewal that fails is tried again at the next one: only a lapse of the whole lease lets a
    /// redelivery take over.
    private static func keepingLease<T: Sendable>(
        on id: String, context: Engine, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(StoredCallEvent.lease / 4))
                    try? await context.callEvents.renewLease(id: id)
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    private func duplicate(_ event: CallEvent, _ row: StoredCallEvent) throws -> CallEventAnswer {
        let answer = try CallEventAnswer(row, duplicate: true)
        CallEventMetrics.event(event.type, answer.state == .abandoned ? .abandoned : .duplicate)
        return answer
    }

    /// The same id must carry the same event (`digest`: the event's, or its job's): another body
    /// under it is a client bug, 409.
    static func checkSameEvent(_ event: CallEvent, digest: String, _ row: StoredCallEvent) throws {
        guard row.digest != digest else { return }
        CallEventMetrics.event(event.type, .conflict)
        throw EngineError.callEventConflict(id: event.id)
    }
}
