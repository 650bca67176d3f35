import Foundation

/// A call event's row: who claimed its id, whether its sending has finished, and its results.
public struct StoredCallEvent: Sendable, Equatable {
    public enum State: String, Sendable {
        /// The first poster is sending (or crashed while sending: see `isAbandoned`).
        case running
        case done
    }

    public var id: String
    /// SHA-256 of the event's canonical form, hex.
    public var digest: String
    public var type: String
    public var state: State
    /// When the first poster stops sending; for an event sent as a push job, the job's deadline.
    public var deadline: Date
    /// The per-device results as the API wrote them (a JSON array); nil while running.
    public var resultJSON: String?
    /// The push job that sends the event, for one sent as a job (its results are the job's).
    public var jobID: String?
    public var createdAt: Date
    public var finishedAt: Date?
    /// Until when its poster holds it while `running` (renewed as it sends); nil for an event
    /// sent as a push job, and once done.
    public var leaseUntil: Date? = nil

    /// How long a claim holds without renewal: a poster renews it every `lease / 4` while it
    /// sends, so only a dead (or cut off) poster lets it lapse, and a redelivery then rings within
    /// seconds, well inside a ring's 30 s.
    public static let lease: TimeInterval = 4

    /// How long after its deadline a row still `running` is taken for a crashed poster's: the
    /// poster writes its results within moments of the deadline, so this is the time a slow
    /// database gets to take that write.
    public static let abandonMargin: TimeInterval = 10

    /// Whether its id still makes a post of the same id a duplicate at `now` (see
    /// `CallEventStore.dedupeWindow`); after that, the id is a new event.
    public func dedupes(at now: Date) -> Bool {
        now.timeIntervalSince(createdAt) < CallEventStore.dedupeWindow
    }

    /// Still `running` past its lease and before its deadline: a post of the same event may take
    /// it over (`CallEventStore.claim` decides, on the database's clock).
    public func isTakeable(at now: Date) -> Bool {
        state == .running && jobID == nil && (leaseUntil.map { $0 < now } ?? false) && now < deadline
    }

    /// Still `running` long after its poster stopped sending: the poster died before writing its
    /// results. Nothing more is sent for it (its deadline has passed), and waiting ends.
    public func isAbandoned(at now: Date) -> Bool {
        state == .running && now > deadline.addingTimeInterval(Self.abandonMargin)
    }
}

/// A call event as its id is claimed: the digest tells a duplicate from a conflict.
public struct CallEventHandOver: Sendable {
    public let id: String
    public let digest: String
    public let type: String

    public init(id: String, digest: String, type: String) {
        self.id = id
        self.digest = digest
        self.type = type
    }
}

/// What claiming an event id found.
public enum CallEventClaim: Sendable, Equatable {
    /// The id was free (or its last use older than the dedupe window): the caller sends.
    case claimed(StoredCallEvent)
    /// The id is taken within the window; the caller answers from this row.
    case existing(StoredCallEvent)
}
