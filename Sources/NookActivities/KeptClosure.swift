/// A closure kept in a ``Locked`` (or a `Mutex`) and read from it again and again: a handler, a
/// gate, a redraw.
///
/// Why not the closure itself: a `Locked<(@Sendable (NookActivityID) -> Void)?>` hands its value
/// to `withLock`'s body as an `inout` generic value. Where `withLock` is not specialized (another
/// module, a debug build), Swift re-abstracts a function value on the way in and again on the way
/// back, wrapping it in one thunk each way. So every `withLock { $0 }` left the kept closure two
/// thunks deeper: nookd's card-leaving handler, read once a card, was 48,176 stack frames deep
/// after 52,000 cards, and each card added some 65 bytes that stayed (the soak's idle memory that
/// never levelled off). Its thread's 8 MiB stack would have overflowed near 400,000 cards.
///
/// A struct is handed over as it is, so the lock never wraps the closure inside it. A test reads
/// every `Locked` and `Mutex` declaration in Sources and refuses a function type outside one of
/// these (`q16_aClosureIsKeptInALockOnlyInsideAKeptClosure`).
public struct KeptClosure<Function: Sendable>: Sendable {
    public let call: Function

    public init(_ call: Function) {
        self.call = call
    }
}
