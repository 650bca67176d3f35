import Foundation
import RegistryCore

/// "These users are being called" (or were, for the non-ringing types): one event in, every
/// device of every user in `userIDs` woken in its app's format. Built only valid, by `parse` from
/// a request body or by `init` (the DialStack webhook's mapping). An event whose users are
/// streamed on lines of their own (`UserListing.streamed`) has none in `userIDs`.
///
/// `ringingAt` is when the ttl starts counting; `expiresAt` is when pushing stops being useful and
/// nothing more is sent.
public struct CallEvent: Sendable, Hashable {
    /// The backend's id for this event: it makes the event idempotent.
    public let id: String
    public let type: CallEventType
    /// In the order given, each once (for a job, as given); empty when they are streamed after
    /// the event.
    public let userIDs: [UserID]
    public let call: CallDetails
    public let caller: Caller
    public let toNumber: PhoneNumber?
    public let ringingAt: Date
    /// False when `ringingAt` is the arrival time: that is not part of what the client sent, so
    /// the canonical form leaves it out and a retry compares equal.
    public let ringingAtGiven: Bool
    public let ttl: CompactDuration

    /// A call rings for about 30 s (DialStack's window); a ring still arriving after a minute is
    /// for a call that is over.
    public static let maxRingTTL = CompactDuration(seconds: 60)
    /// FCM's longest ttl (28 days); APNs keeps a notification no longer anyway.
    public static let maxTTL = CompactDuration(seconds: 28 * 86_400)
    /// Users one answer with every device's result may cover; more make a push job.
    public static let maxUsers = 1_000
    /// Users one call event sent as a push job may cover.
    public static let maxJobUsers = 1_000_000
    /// How far `ringing_at` may lie after the arrival time: clocks differ a little, but a ring
    /// dated in the future would push its expiry out with it.
    public static let maxClockSkew: TimeInterval = 60

    /// Errors name the JSON fields (`ttl`, `caller.phone_number`, …). `ringingAt` defaults to
    /// `arrivedAt`, `ttl` to the type's (`CallEventType.defaultTTL`).
    public init(
        id: String, type: CallEventType, userIDs: [UserID], call: CallDetails, caller: Caller,
        toNumber: String? = nil, ringingAt: Date? = nil, ttl: CompactDuration? = nil, arrivedAt: Date
    ) throws(ValidationErrors) {
        var checks = ValidationCollector()
        let id = checks.check { () throws(ValidationError) in try CallFieldRules.id(id, field: "id") }
        let users = checks.check { () throws(ValidationError) in try Self.checkUsers(userIDs, maximum: Self.maxUsers) }
        let toNumber = toNumber.flatMap { number in
            checks.check { () throws(ValidationError) in try PhoneNumber(number, field: "to_number") }
        }
        let ttl = ttl ?? type.defaultTTL
        checks.check { () throws(ValidationError) in try Self.checkTTL(ttl, type: type) }
        if let ringingAt {
            checks.check { () throws(ValidationError) in try Self.checkRingingAt(ringingAt, arrivedAt: arrivedAt) }
        }
        try checks.finish()
        self.init(
            validatedID: id!, type: type, userIDs: users!, call: call, caller: caller, toNumber: toNumber,
            ringingAt: ringingAt, ttl: ttl, arrivedAt: arrivedAt)
    }

    init(
        validatedID id: String, type: CallEventType, userIDs: [UserID], call: CallDetails, caller: Caller,
        toNumber: PhoneNumber?, ringingAt: Date?, ttl: CompactDuration, arrivedAt: Date
    ) {
        self.id = id
        self.type = type
        self.userIDs = userIDs
        self.call = call
        self.caller = caller
        self.toNumber = toNumber
        self.ringingAt = ringingAt ?? arrivedAt
        self.ringingAtGiven = ringingAt != nil
        self.ttl = ttl
    }

    /// `ringingAt` + `ttl`: from then on nothing is sent.
    public var expiresAt: Date { ringingAt.addingTimeInterval(ttl.timeInterval) }

    /// Seconds left until `expiresAt` at `now`, never more than the ttl itself (a `ringingAt`
    /// slightly ahead of our clock does not stretch it); zero or less once expired.
    public func remaining(at now: Date) -> TimeInterval {
        min(expiresAt.timeIntervalSince(now), ttl.timeInterval)
    }

    /// At least one user, at most `maximum`, duplicates dropped (a user is never rung twice).
    /// A job's users are kept as given, counted as given: its recipients drop repeats, and its
    /// digest must be the same whether they came in a JSON array or streamed.
    static func checkUsers(_ userIDs: [UserID], maximum: Int, dropRepeats: Bool = true) throws(ValidationError)
        -> [UserID]
    {
        var seen = Set<UserID>()
        let users = dropRepeats ? userIDs.filter { seen.insert($0).inserted } : userIDs
        guard !users.isEmpty, users.count <= maximum else {
            throw ValidationError(field: "user_ids", message: "must list 1–\(maximum) user ids")
        }
        return users
    }

    static func checkTTL(_ ttl: CompactDuration, type: CallEventType) throws(ValidationError) {
        let limit = type.isRinging ? maxRingTTL : maxTTL
        guard ttl.seconds <= limit.seconds else {
            let what = type.isRinging ? "a ring" : "a notification"
            throw ValidationError(field: "ttl", message: "must be at most \(limit) for \(what)")
        }
    }

    static func checkRingingAt(_ ringingAt: Date, arrivedAt: Date, field: String = "ringing_at")
        throws(ValidationError)
    {
        guard ringingAt.timeIntervalSince(arrivedAt) <= maxClockSkew else {
            throw ValidationError(
                field: field, message: "must not be more than \(Int(maxClockSkew)) s in the future")
        }
    }
}
