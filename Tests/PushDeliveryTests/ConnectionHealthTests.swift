import NIOCore
import Testing

@testable import PushDelivery

/// The dead-connection rule over made-up clock readings: no sockets, no waiting.
@Suite struct ConnectionHealthTests {
    /// The rule ticked every `tickInterval` (250 ms here), as the handler does.
    struct Ticker {
        static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var health = ConnectionHealth(idleInterval: .seconds(60), answerTimeout: .seconds(1), now: start)
        var milliseconds: Int64 = 0

        static func at(_ milliseconds: Int64) -> NIODeadline { start + .milliseconds(milliseconds) }

        /// The actions other than `.none` up to `end`, with when they came.
        mutating func run(until end: Int64, openStreams: Int) -> [Action] {
            var actions: [Action] = []
            while milliseconds + 250 <= end {
                milliseconds += 250
                let action = health.tick(at: Self.at(milliseconds), openStreams: openStreams)
                if action != .none { actions.append(Action(at: milliseconds, action: action)) }
            }
            return actions
        }
    }

    struct Action: Equatable {
        let at: Int64
        let action: ConnectionHealth.Action
    }

    @Test func readsThatStopWhileStreamsAreOpenBringOnePingAtTheNextTick() {
        var ticker = Ticker()
        #expect(ticker.run(until: 1000, openStreams: 3) == [Action(at: 250, action: .ping)])
    }

    @Test func anUnansweredPingRetiresTheConnection() {
        var ticker = Ticker()
        #expect(
            ticker.run(until: 5000, openStreams: 1) == [
                Action(at: 250, action: .ping), Action(at: 1250, action: .retire),
            ])
        #expect(ticker.health.isDead)
        #expect(ticker.health.streamTimedOut(at: Ticker.at(5000)) == .none)
    }

    @Test func anyReadAfterThePingKeepsTheConnectionAndRestartsTheClock() {
        var ticker = Ticker()
        #expect(ticker.run(until: 250, openStreams: 1) == [Action(at: 250, action: .ping)])
        ticker.health.read(at: Ticker.at(400))
        #expect(ticker.run(until: 1500, openStreams: 1) == [Action(at: 750, action: .ping)])
        #expect(!ticker.health.isDead)
    }

    @Test func anIdleConnectionIsPingedOnlyAfterTheIdleInterval() {
        var ticker = Ticker()
        #expect(ticker.run(until: 59_750, openStreams: 0) == [])
        #expect(
            ticker.run(until: 61_000, openStreams: 0) == [
                Action(at: 60_000, action: .ping), Action(at: 61_000, action: .retire),
            ])
    }

    @Test func aStreamTimeoutPingsAtOnceButNotTwice() {
        var ticker = Ticker()
        #expect(ticker.run(until: 250, openStreams: 0) == [])
        #expect(ticker.health.streamTimedOut(at: Ticker.at(300)) == .ping)
        #expect(ticker.health.streamTimedOut(at: Ticker.at(400)) == .none)
        #expect(ticker.run(until: 1500, openStreams: 2) == [Action(at: 1500, action: .retire)])
    }

    /// A tick two seconds late: this process stalled, so the unanswered PING is given its time
    /// again from then instead of the connection being retired at once.
    @Test func aStalledProcessDoesNotBlameTheConnection() {
        var ticker = Ticker()
        #expect(ticker.run(until: 250, openStreams: 1) == [Action(at: 250, action: .ping)])
        ticker.milliseconds = 3000
        #expect(ticker.health.tick(at: Ticker.at(3000), openStreams: 1) == .none)
        #expect(ticker.run(until: 4000, openStreams: 1) == [Action(at: 3750, action: .retire)])
    }
}
