#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookSystem

/// The fbdev fallback (D2) for panels that offer only `/dev/fbN` (fbtft SPI panels, simple
/// framebuffers): XRGB8888 or RGB565, waiting for vsync where the driver offers
/// `FBIO_WAITFORVSYNC` and pacing on the injected clock where it does not.
///
/// The kernel's `fb_var_screeninfo` and `fb_fix_screeninfo` are read at their fixed byte
/// offsets rather than mirrored as Swift structs, whose layout Swift does not promise.
public final class FramebufferDisplay: DisplayBackend, @unchecked Sendable {
    public enum PixelFormat: String, Sendable {
        case xrgb8888, rgb565
    }

    public let mode: DisplayMode
    public let format: PixelFormat
    public let path: String

    private let device: FileDescriptor
    private let mapping: MemoryMapping
    private var fd: Int32 { device.rawValue }
    private var memory: UnsafeMutableRawPointer { mapping.address }
    private var memoryLength: Int { mapping.length }
    private let lineLength: Int
    private let clock: any NookClock
    /// What the framebuffer showed at start (the console), put back by `restore()`.
    private let savedContents: [UInt8]
    /// Guards the mapping: presents and restore may come from different tasks.
    private let state = Locked(State())

    private struct State {
        var hasVSync = true
        var pacer = RefreshPacer(refreshHz: 60)
        var restored = false
    }

    // <linux/fb.h>
    static let getVariableInfo: UInt = 0x4600       // FBIOGET_VSCREENINFO
    static let getFixedInfo: UInt = 0x4602          // FBIOGET_FSCREENINFO
    static let blank: UInt = 0x4611                 // FBIOBLANK
    static let waitForVSync: UInt = 0x4004_4620     // FBIO_WAITFORVSYNC = _IOW('F', 0x20, __u32)

    public init(path: String? = nil, clock: any NookClock) throws(DisplayError) {
        let chosen = path ?? Self.framebufferPaths().first
        guard let chosen else { throw DisplayError(operation: "find a framebuffer", detail: "no /dev/fb* exists") }
        self.path = chosen
        self.clock = clock
        let device: FileDescriptor
        do throws(SystemCallError) {
            device = try FileDescriptor.open(chosen, O_RDWR)
        } catch {
            throw DisplayError(error, advice: error.errno == .permissionDenied ? "install udev/70-nook.rules and add the user to the 'nook' group" : "")
        }
        var variable = [UInt8](repeating: 0, count: 160)
        var fixed = [UInt8](repeating: 0, count: 80)
        do throws(SystemCallError) {
            _ = try variable.withUnsafeMutableBytes { bytes in
                Result { () throws(SystemCallError) in try System.ioctl(device.rawValue, Self.getVariableInfo, bytes.baseAddress!, name: "FBIOGET_*SCREENINFO", subject: chosen) }
            }.get()
            _ = try fixed.withUnsafeMutableBytes { bytes in
                Result { () throws(SystemCallError) in try System.ioctl(device.rawValue, Self.getFixedInfo, bytes.baseAddress!, name: "FBIOGET_*SCREENINFO", subject: chosen) }
            }.get()
        } catch {
            throw DisplayError(error)
        }
        let info = ScreenInfo(variable: variable, fixed: fixed)
        guard let format = info.pixelFormat else {
            throw DisplayError(operation: "use \(chosen)", detail: "unsupported pixel format: \(info.bitsPerPixel) bits per pixel, red \(info.red), green \(info.green), blue \(info.blue) (Nook draws XRGB8888 and RGB565)")
        }
        let mapping: MemoryMapping
        do throws(SystemCallError) {
            mapping = try MemoryMapping(sharing: device, length: info.lineLength * info.height)
        } catch {
            throw DisplayError(error)
        }
        lineLength = info.lineLength
        self.format = format
        // Read once at start, to give the console its pixels back; never read per frame.
        savedContents = Array(UnsafeRawBufferPointer(start: mapping.address, count: mapping.length))
        self.device = device
        self.mapping = mapping
        mode = DisplayMode(size: PixelSize(width: info.width, height: info.height), refreshHz: 60, name: chosen)
    }

    /// The mapping and the device are released by their owners after this (in either order:
    /// a mapping outlives close(2)).
    deinit { restore() }

    /// `/dev/fb0`, `/dev/fb1`, … that exist.
    public static func framebufferPaths() -> [String] {
        (0..<8).map { "/dev/fb\($0)" }.filter(fileExists)
    }

    public func present(_ frame: Frame) async throws(DisplayError) {
        guard frame.size == mode.size else {
            throw DisplayError(operation: "present", detail: "frame is \(frame.size) but \(path) is \(mode.size)")
        }
        // Without vsync, pace to 60 Hz on the clock so animations keep their speed.
        if let waitUntil = state.withLock({ $0.hasVSync ? nil : $0.pacer.slot(readyAt: clock.now) }) {
            try? await clock.sleep(until: waitUntil)
        }
        let failure: DisplayError? = state.withLock { state in
            guard !state.restored else { return DisplayError(operation: "present", detail: "the display was restored and released") }
            if state.hasVSync {
                var crtc: UInt32 = 0
                if (try? System.ioctl(fd, Self.waitForVSync, &crtc, name: "FBIO_WAITFORVSYNC")) == nil { state.hasVSync = false }
            }
            write(frame)
            return nil
        }
        if let failure { throw failure }
    }

    private func write(_ frame: Frame) {
        frame.pixels.withUnsafeBufferPointer { pixels in
            let width = mode.size.width
            for row in 0..<mode.size.height {
                let target = memory + row * lineLength
                let source = UnsafeBufferPointer(rebasing: pixels[(row * width)..<((row + 1) * width)])
                switch format {
                case .xrgb8888:
                    target.copyMemory(from: source.baseAddress!, byteCount: width * 4)
                case .rgb565:
                    let out = target.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width { out[x] = Self.rgb565(source[x]) }
                }
            }
        }
    }

    /// XRGB8888 to RGB565: the top 5, 6 and 5 bits of red, green and blue.
    public static func rgb565(_ pixel: UInt32) -> UInt16 {
        let red: UInt32 = (pixel >> 8) & 0xF800
        let green: UInt32 = (pixel >> 5) & 0x07E0
        let blue: UInt32 = (pixel >> 3) & 0x001F
        return UInt16(truncatingIfNeeded: red | green | blue)
    }

    public func setBlanked(_ blanked: Bool) async throws(DisplayError) {
        // FB_BLANK_POWERDOWN = 4, FB_BLANK_UNBLANK = 0.
        do throws(SystemCallError) {
            try System.ioctl(fd, Self.blank, value: blanked ? 4 : 0, name: "FBIOBLANK", subject: path)
        } catch {
            throw DisplayError(error)
        }
    }

    /// Puts back what the framebuffer showed at start. Idempotent; after it, presents fail.
    public func restore() {
        state.withLock { state in
            guard !state.restored else { return }
            state.restored = true
            savedContents.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: memoryLength) }
        }
    }
}

/// The fields Nook needs from `fb_var_screeninfo` (160 bytes) and `fb_fix_screeninfo` (80 bytes
/// on 64-bit Linux), at their offsets in <linux/fb.h>.
struct ScreenInfo {
    var width: Int, height: Int, bitsPerPixel: Int
    var red: (offset: Int, length: Int), green: (offset: Int, length: Int), blue: (offset: Int, length: Int)
    var lineLength: Int

    init(variable: [UInt8], fixed: [UInt8]) {
        func u32(_ bytes: [UInt8], _ offset: Int) -> Int {
            Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) })
        }
        width = u32(variable, 0)                   // xres
        height = u32(variable, 4)                  // yres
        bitsPerPixel = u32(variable, 24)           // bits_per_pixel
        red = (u32(variable, 32), u32(variable, 36))     // red.offset, red.length
        green = (u32(variable, 44), u32(variable, 48))
        blue = (u32(variable, 56), u32(variable, 60))
        lineLength = u32(fixed, 48)                // line_length, after smem_start (unsigned long)
    }

    var pixelFormat: FramebufferDisplay.PixelFormat? {
        if bitsPerPixel == 32, red == (16, 8), green == (8, 8), blue == (0, 8) { return .xrgb8888 }
        if bitsPerPixel == 16, red == (11, 5), green == (5, 6), blue == (0, 5) { return .rgb565 }
        return nil
    }
}
