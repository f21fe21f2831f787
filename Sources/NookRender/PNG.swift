internal import CPangoCairo
import NookDisplay
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// PNG files of frames, through cairo's encoder (zlib-compressed, 8-bit RGB).
public enum PNG {
    /// Writes `frame` to `path`; throws naming the path and cairo's reason.
    public static func write(_ frame: Frame, to path: String) throws(RenderError) {
        try write(frame, to: [path])
    }

    /// Writes `frame` once encoded to every file of `paths` (the mock's numbered frame file and
    /// its `latest.png`: one encoding, not one per file). Each is opened, close-on-exec, before
    /// the encoding starts, and must be a regular file: a FIFO whose reader never reads would
    /// hold the writer (and nookd's shutdown, which waits for it) forever, one whose reader
    /// left would end nookd with SIGPIPE, and opening a device can itself do something
    /// (`/dev/watchdog`). Throws naming the first path that failed and why; a failed write
    /// removes the files it had opened, which would hold nothing or part of a PNG.
    /// - Parameter modified: the files' access and modification time in nanoseconds since the
    ///   epoch (CLOCK_REALTIME), set on each file's own descriptor once written; nil leaves the
    ///   time of the writing.
    public static func write(_ frame: Frame, to paths: [String], modified: Int64? = nil) throws(RenderError) {
        var opened: [FileDescriptor] = []
        func notRegular(_ path: String) -> RenderError {
            RenderError(operation: "open", detail: "\(path): not a regular file (a FIFO, a device or a directory); refusing to write a PNG there")
        }
        func failed(_ error: RenderError) -> RenderError {
            for file in opened { _ = try? removeFile(file.name) }
            return error
        }
        for path in paths {
            if let info = try? fileStatus(path), info.st_mode & S_IFMT != S_IFREG {
                throw failed(notRegular(path))
            }
            let regular: Bool
            do throws(SystemCallError) {
                // Without blocking, so that a FIFO made after the check fails (ENXIO) or is
                // refused below instead of waiting for a reader.
                let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, mode: 0o644)
                regular = try file.status().st_mode & S_IFMT == S_IFREG
                // Refused, it is closed, and left where it is.
                if regular { opened.append(file) }
            } catch {
                throw failed(RenderError(operation: error.call, detail: "\(path): \(SystemCallError.describe(errno: error.errno))"))
            }
            guard regular else { throw failed(notRegular(path)) }
        }
        var failure: SystemCallError?
        let status = stream(frame) { chunk in
            do throws(SystemCallError) {
                for file in opened { try file.writeAll(chunk) }
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure {
            throw failed(RenderError(operation: failure.call, detail: "\(failure.subject ?? ""): \(SystemCallError.describe(errno: failure.errno))"))
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw failed(RenderError(operation: "cairo_surface_write_to_png_stream", detail: "\(paths.joined(separator: ", ")): \(String(cString: cairo_status_to_string(status)))"))
        }
        if let modified {
            let time = timespec(tv_sec: Int(modified / 1_000_000_000), tv_nsec: Int(modified % 1_000_000_000))
            var times = [time, time]
            for file in opened {
                do throws(SystemCallError) {
                    try System.setTimes(file.rawValue, &times, subject: file.name)
                } catch {
                    throw failed(RenderError(operation: "futimens", detail: "\(file.name): \(error.errno)"))
                }
            }
        }
    }

    /// The PNG bytes of `frame`, in memory (for `nookctl snapshot`).
    public static func encode(_ frame: Frame) throws(RenderError) -> [UInt8] {
        var bytes: [UInt8] = []
        let status = stream(frame) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError(operation: "cairo_surface_write_to_png_stream", detail: String(cString: cairo_status_to_string(status)))
        }
        return bytes
    }

    /// Encodes `frame`, handing each piece of the PNG to `chunk` as cairo makes it; `chunk`
    /// returns false to stop the encoding with a write error.
    static func stream(_ frame: Frame, _ chunk: (UnsafeRawBufferPointer) -> Bool) -> cairo_status_t {
        withoutActuallyEscaping(chunk) { chunk in
            final class Sink {
                let chunk: (UnsafeRawBufferPointer) -> Bool
                init(_ chunk: @escaping (UnsafeRawBufferPointer) -> Bool) { self.chunk = chunk }
            }
            let sink = Sink(chunk)
            return withEncodingSurface(over: frame) { surface in
                withExtendedLifetime(sink) {
                    cairo_surface_write_to_png_stream(surface, { closure, data, length in
                        let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                        return sink.chunk(UnsafeRawBufferPointer(start: data, count: Int(length))) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR
                    }, Unmanaged.passUnretained(sink).toOpaque())
                }
            }
        }
    }

    /// A cairo surface over `frame`'s own pixels, for encoding only. The frame the mock display
    /// hands over shares its storage with the screen, so the `inout` surface of drawing
    /// (`withImageSurface`) would copy all of it first, hundreds of fresh pages, before the
    /// file was even opened, for every frame file written. cairo's PNG encoder only
    /// reads the data.
    static func withEncodingSurface<Result>(over frame: Frame, _ body: (OpaquePointer) -> Result) -> Result {
        frame.pixels.withUnsafeBytes { bytes in
            let surface = cairo_image_surface_create_for_data(
                UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)), CAIRO_FORMAT_RGB24,
                Int32(frame.width), Int32(frame.height), Int32(frame.width * 4))!
            defer { cairo_surface_destroy(surface) }
            return body(surface)
        }
    }

    /// Reads a PNG file into a frame, flattening any alpha onto black.
    public static func read(from path: String) throws(RenderError) -> Frame {
        let image = try loadPNGSurface(path)
        defer { cairo_surface_destroy(image) }
        let width = Int(cairo_image_surface_get_width(image))
        let height = Int(cairo_image_surface_get_height(image))
        var frame = Frame(width: width, height: height)
        Canvas.draw(into: &frame) { canvas in canvas.paintSurface(image) }
        return frame
    }
}

extension Canvas {
    fileprivate func paintSurface(_ surface: OpaquePointer?) {
        cairo_set_source_surface(context, surface, 0, 0)
        cairo_paint(context)
    }
}
