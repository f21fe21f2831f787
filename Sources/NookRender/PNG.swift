internal import CPangoCairo
import NookDisplay

/// PNG files of frames, through cairo's encoder (zlib-compressed, 8-bit RGB).
public enum PNG {
    /// Writes `frame` to `path`; throws naming the path and cairo's reason.
    public static func write(_ frame: Frame, to path: String) throws(RenderError) {
        var copy = frame
        let status = withImageSurface(over: &copy) { cairo_surface_write_to_png($0, path) }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError(operation: "cairo_surface_write_to_png", detail: "\(path): \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// The PNG bytes of `frame`, in memory (for `nookctl snapshot`).
    public static func encode(_ frame: Frame) throws(RenderError) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var copy = frame
        let status = withImageSurface(over: &copy) { surface in
            withExtendedLifetime(sink) {
                cairo_surface_write_to_png_stream(surface, { closure, data, length in
                    let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                    return CAIRO_STATUS_SUCCESS
                }, Unmanaged.passUnretained(sink).toOpaque())
            }
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError(operation: "cairo_surface_write_to_png_stream", detail: String(cString: cairo_status_to_string(status)))
        }
        return sink.bytes
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
