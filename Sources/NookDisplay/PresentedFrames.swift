/// Told of each frame a screen has put on the glass, upright as drawn (before the turn to the
/// panel): the live view (V1). Called on the screen's own executor between two presents, so it
/// may copy the frame and must do nothing slower (the encoding happens elsewhere).
public protocol PresentedFrames: AnyObject, Sendable {
    /// A new frame is on the glass.
    func presented(_ frame: Frame)
    /// The frame on the glass now, again (asked for with the screen's `offerCurrentFrame`):
    /// not a change of the glass.
    func showing(_ frame: Frame)
}
