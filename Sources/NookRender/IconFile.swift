#if canImport(Glibc)
import Glibc
#endif
internal import CPangoCairo
import NookGIF
import NookSystem

/// A PNG or GIF icon decoded into memory (R3): premultiplied ARGB32 pixels, as cairo paints them.
public struct IconImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// `width * height` pixels, row by row.
    public let pixels: [UInt32]

    public init(width: Int, height: Int, pixels: [UInt32]) {
        precondition(pixels.count == width * height, "\(pixels.count) pixels for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// An icon file's every frame (a PNG has one; an animated GIF more) and how long each shows.
public struct IconPicture: Hashable, Sendable {
    public let frames: [IconImage]
    /// One a frame: the GIF's delay, raised as browsers raise one too short (``GIFFrame/shownFor``).
    public let delays: [Duration]

    public var isAnimated: Bool { frames.count > 1 }
}

/// Why an icon file cannot be drawn; the message names the path and what is wrong with it.
public struct IconFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }
    public var description: String { "\(path): \(problem)" }
}

/// Reads icon files without ever blocking on what the path names (R3).
///
/// An icon path comes from any client of nookd's socket, and `fopen` on a FIFO waits for a
/// writer forever (it once hung the screen for good), a device such as `/dev/zero` never ends,
/// and a sparse file can claim terabytes. So the file is opened with `O_NONBLOCK` (opening a
/// FIFO returns at once), checked with `fstat` on that descriptor (so the file checked is the
/// file read), must be a regular file of at most ``maximumBytes``, is read whole into memory,
/// must be a PNG or a GIF no larger than ``maximumSide`` on either side (checked in its header
/// before decoding, so a small file cannot inflate to gigabytes), and is decoded from memory:
/// a PNG by cairo, a GIF by NookGIF within ``gifLimits``.
public enum IconFile {
    public static let maximumBytes = 1 << 20
    public static let maximumSide = 1024

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Which file a path named and how it was when it was read: a PNG written again at the same
    /// path (in place or renamed over it) changes its inode, size or modification time, so a
    /// picture kept by its path alone would go on showing the old file. Nanoseconds count: a
    /// file rewritten within the same second at the same size differs only there.
    public struct Stamp: Hashable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        public var modifiedSeconds: Int64
        public var modifiedNanoseconds: Int64
    }

    /// The stamp of what `path` names now (`stat(2)`, which never opens the file, so a FIFO
    /// does not block it), or nil when nothing can be stat'ed there.
    public static func stamp(path: String) -> Stamp? {
        guard let info = try? fileStatus(path) else { return nil }
        return Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                     modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// An icon GIF's bounds: a megabyte, ``maximumSide`` a side, 256 frames, 4 Mi pixels decoded.
    public static let gifLimits = GIFLimits(bytes: maximumBytes, side: maximumSide, frames: 256, decodedPixels: 1 << 22)

    /// Loads and decodes the PNG or GIF at `path`: its first frame. With `followingSymlinks: false` a symbolic link as
    /// the last component is refused (nookd passes a path it has already resolved).
    public static func load(path: String, followingSymlinks: Bool = true) throws(IconFileError) -> IconImage {
        try loadPicture(path: path, followingSymlinks: followingSymlinks).frames[0]
    }

    /// Whether `path` holds a GIF of more than one frame that decodes (a panel draws its first frame).
    public static func isAnimatedGIF(path: String) -> Bool {
        guard let bytes = try? readFile(path: path, followingSymlinks: true), GIFDecoder.isGIF(bytes) else { return false }
        return (try? GIFDecoder.decode(bytes, limits: gifLimits))?.isAnimated == true
    }

    /// As ``load(path:followingSymlinks:)``, every frame with its delay.
    public static func loadPicture(path: String, followingSymlinks: Bool = true) throws(IconFileError) -> IconPicture {
        let bytes = try readFile(path: path, followingSymlinks: followingSymlinks)
        guard GIFDecoder.isGIF(bytes) else { return IconPicture(frames: [try decode(bytes, path: path)], delays: [.zero]) }
        do throws(GIFError) {
            let gif = try GIFDecoder.decode(bytes, limits: gifLimits)
            return IconPicture(frames: gif.frames.map { IconImage(width: gif.width, height: gif.height, pixels: $0.pixels) },
                               delays: gif.frames.map(\.shownFor))
        } catch {
            throw IconFileError(path: path, problem: "cannot be decoded as a GIF: \(error)")
        }
    }

    static func readFile(path: String, followingSymlinks: Bool) throws(IconFileError) -> [UInt8] {
        func failure(_ problem: String) -> IconFileError { IconFileError(path: path, problem: problem) }
        do throws(FileReadError) {
            return try readRegularFile(path, limit: maximumBytes, openFlags: followingSymlinks ? 0 : O_NOFOLLOW)
        } catch {
            if case .tooLarge(_, let bytes, _) = error { throw failure("is \(bytes) bytes; an icon file may have at most \(maximumBytes)") }
            throw failure(error.problem(followingSymlinks: followingSymlinks))
        }
    }

    static func decode(_ bytes: [UInt8], path: String) throws(IconFileError) -> IconImage {
        func failure(_ problem: String) -> IconFileError { IconFileError(path: path, problem: problem) }
        // Signature, then the IHDR chunk: length, type, width and height (big-endian).
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, bytes[12..<16].elementsEqual("IHDR".utf8) else {
            // Told by its contents, not its name: a name says what the sender meant it to be.
            throw failure(path.hasSuffix(".gif") ? "is not a GIF file" : "is not a PNG file")
        }
        func bigEndian(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let (width, height) = (bigEndian(16), bigEndian(20))
        guard width > 0, height > 0 else { throw failure("is not a PNG file (an image of \(width)x\(height))") }
        guard width <= maximumSide, height <= maximumSide else {
            throw failure("is \(width)x\(height) pixels; an icon may be at most \(maximumSide)x\(maximumSide)")
        }
        final class Reader {
            let bytes: [UInt8]
            var offset = 0
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let reader = Reader(bytes)
        let surface = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream({ closure, data, length in
                let reader = Unmanaged<Reader>.fromOpaque(closure!).takeUnretainedValue()
                let wanted = Int(length)
                guard reader.bytes.count - reader.offset >= wanted, let data else { return CAIRO_STATUS_READ_ERROR }
                reader.bytes.withUnsafeBytes { source in
                    UnsafeMutableRawPointer(data).copyMemory(from: source.baseAddress! + reader.offset, byteCount: wanted)
                }
                reader.offset += wanted
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(reader).toOpaque())!
        }
        defer { cairo_surface_destroy(surface) }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw failure("cannot be decoded as a PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        cairo_surface_flush(surface)
        let (decodedWidth, decodedHeight) = (Int(cairo_image_surface_get_width(surface)), Int(cairo_image_surface_get_height(surface)))
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard decodedWidth == width, decodedHeight == height, let data = cairo_image_surface_get_data(surface) else {
            throw failure("cannot be decoded as a PNG")
        }
        let format = cairo_image_surface_get_format(surface)
        var pixels = [UInt32](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { target in
            for row in 0..<height {
                let source = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
                for column in 0..<width {
                    // cairo decodes opaque PNGs as RGB24, whose top byte is undefined.
                    let pixel = source[column]
                    target[row * width + column] = format == CAIRO_FORMAT_ARGB32 ? pixel : pixel | 0xFF00_0000
                }
            }
        }
        return IconImage(width: width, height: height, pixels: pixels)
    }
}

extension Canvas {
    /// Paints a decoded icon scaled to fit `rect`; `sharp`: each pixel a square (a drawing
    /// made on an LED matrix's grid), not smoothed.
    func paint(_ image: IconImage, in rect: Rect, sharp: Bool = false) {
        var pixels = image.pixels
        pixels.withUnsafeMutableBytes { bytes in
            let surface = cairo_image_surface_create_for_data(
                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                Int32(image.width), Int32(image.height), Int32(image.width * 4))!
            defer {
                cairo_surface_finish(surface)
                cairo_surface_destroy(surface)
            }
            let scale = min(rect.width / Double(image.width), rect.height / Double(image.height))
            cairo_save(context)
            cairo_translate(context, rect.x + (rect.width - Double(image.width) * scale) / 2,
                            rect.y + (rect.height - Double(image.height) * scale) / 2)
            cairo_scale(context, scale, scale)
            cairo_set_source_surface(context, surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(context), sharp ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD)
            cairo_paint(context)
            cairo_restore(context)
        }
    }
}
