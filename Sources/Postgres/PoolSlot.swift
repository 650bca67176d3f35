/// Room for one connection. The pool holds a slot while it is free, one caller while it is checked
/// out; that hand-over under the pool's lock is what makes the unchecked `Sendable` sound.
final class PoolSlot: @unchecked Sendable {
    var connection: PostgresConnection?
}
