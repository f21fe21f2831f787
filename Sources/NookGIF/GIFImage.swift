/// A decoded GIF (GIF87a or GIF89a): every frame composed onto the whole logical screen, as a
/// viewer shows it, so a caller needs neither the frame's rectangle nor its disposal.
public struct GIFImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public let frames: [GIFFrame]

    /// Whether it moves: more than one frame.
    public var isAnimated: Bool { frames.count > 1 }
}

/// One frame of a ``GIFImage``: `width * height` pixels row by row, each `0xAARRGGBB` with
/// alpha 0 (transparent, and then all zero) or 255, so it is premultiplied ARGB as it stands.
public struct GIFFrame: Hashable, Sendable {
    public let pixels: [UInt32]
    /// The delay the file states, in hundredths of a second.
    public let delayCentiseconds: Int

    /// The shortest delay a frame is shown for as stated: browsers show a frame that asks for
    /// less (0 or 1 hundredths, which many files state meaning "as fast as you can") for
    /// ``defaultDelay`` instead, so an animation cannot make its viewer redraw without pause.
    public static let shortestDelayCentiseconds = 2
    public static let defaultDelay: Duration = .milliseconds(100)

    /// How long the frame stays on the glass.
    public var shownFor: Duration {
        delayCentiseconds < Self.shortestDelayCentiseconds ? Self.defaultDelay : .milliseconds(delayCentiseconds * 10)
    }
}

/// How much a GIF may ask of the decoder: a small file can claim a huge screen or thousands of
/// frames, so each is checked before anything that size is allocated.
public struct GIFLimits: Hashable, Sendable {
    /// The file's size.
    public var bytes: Int
    /// Width and height of the logical screen and of each frame.
    public var side: Int
    /// Frames in the file.
    public var frames: Int
    /// Pixels of all decoded frames together (frames times the screen's area).
    public var decodedPixels: Int

    public init(bytes: Int, side: Int, frames: Int, decodedPixels: Int) {
        self.bytes = bytes
        self.side = side
        self.frames = frames
        self.decodedPixels = decodedPixels
    }

    /// An icon's: a megabyte, 1024 pixels a side, 256 frames, 4 Mi pixels (16 MiB) decoded.
    public static let icon = GIFLimits(bytes: 1 << 20, side: 1024, frames: 256, decodedPixels: 1 << 22)
}

/// Why a GIF cannot be decoded: what was wrong, and where in the file when it is a place.
public struct GIFError: Error, Hashable, Sendable, CustomStringConvertible {
    public var problem: String
    public init(_ problem: String) { self.problem = problem }
    public var description: String { problem }
}
