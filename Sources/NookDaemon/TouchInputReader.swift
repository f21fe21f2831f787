import NookInput

extension Daemon {
    /// The touch reader nookd starts (NookInput's `TouchInput`, the kernel's input devices).
    static let touchReaderMaker: TouchReaderMaker? = nil
}
