import NookActivities

/// Refresh slots on a clock, for displays that have no vblank to wait for (R5): the mock,
/// fbdev without `FBIO_WAITFORVSYNC`, and DRM drivers that do not flip pages. Each frame gets
/// the first slot at or after the moment it is ready and at least one refresh period after
/// the previous frame's, so a slide keeps the speed it has on a panel that flips at vblank
/// (without it, a driver whose presents cost nothing would play a slide in a few
/// milliseconds); a frame that comes late goes at once rather than waiting a whole period.
public struct RefreshPacer: Sendable {
    public let period: Duration
    private var nextSlot: NookInstant?

    /// A rate that is not a positive number (a driver that does not know its own) paces at
    /// about 60 Hz.
    public init(refreshHz: Double) {
        period = refreshHz.isFinite && refreshHz > 0 ? Duration.nookSeconds(1 / refreshHz) ?? .milliseconds(16) : .milliseconds(16)
    }

    /// Claims the slot of a frame ready at `now`: the instant it may go on the glass.
    public mutating func slot(readyAt now: NookInstant) -> NookInstant {
        let slot = max(now, nextSlot ?? now)
        nextSlot = slot + period
        return slot
    }
}
