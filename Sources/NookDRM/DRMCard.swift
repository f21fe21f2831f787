internal import CDRM
#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// An open DRM card node (`/dev/dri/cardN`); owns the file descriptor and closes it once.
final class DRMCard {
    let path: String
    private let descriptor: FileDescriptor
    var fd: Int32 { descriptor.rawValue }

    init(path: String) throws(DRMError) {
        self.path = path
        do throws(SystemCallError) {
            descriptor = try FileDescriptor.open(path, O_RDWR)
        } catch {
            let advice = switch error.errno {
            case .permissionDenied, .notPermitted: "Access to \(path) is denied: install udev/70-nook.rules and add the user to the 'nook' group"
            case .noSuchFileOrDirectory: "No such DRM device: is the display driver loaded (ls /dev/dri)?"
            default: ""
            }
            throw DRMError(error, advice: advice)
        }
    }

    /// Whether this open file may set modes: the first opener of a card becomes DRM master;
    /// while a compositor (or another nookd) holds it, we are not.
    var isMaster: Bool { drmIsMaster(fd) != 0 }

    func capability(_ capability: Int32) -> UInt64? {
        var value: UInt64 = 0
        return drmGetCap(fd, UInt64(capability), &value) == 0 ? value : nil
    }

    /// The card nodes of this system, in order.
    static func cardPaths() -> [String] {
        let names = (try? directoryEntries("/dev/dri")) ?? []
        return names.filter { $0.hasPrefix("card") }.map { "/dev/dri/" + $0 }
            .sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
    }
}

/// The CRTC configuration found at start (what the console showed), to restore on exit; the
/// one owner of libdrm's copy, freed with it.
final class SavedCRTC {
    let crtc: UnsafeMutablePointer<drmModeCrtc>

    /// `drmModeGetCrtc`; nil when the CRTC cannot be read (then nothing is restored but "off").
    init?(card: DRMCard, crtcID: UInt32) {
        guard let crtc = drmModeGetCrtc(card.fd, crtcID) else { return nil }
        self.crtc = crtc
    }

    deinit { drmModeFreeCrtc(crtc) }
}

/// One dumb buffer with its framebuffer id and CPU mapping; released in reverse order of
/// creation by `deinit`, so a setup that fails half-way cleans up by itself.
final class DumbBuffer {
    let card: DRMCard
    let width: Int
    let height: Int
    let pitch: Int
    let handle: UInt32
    let framebuffer: UInt32
    /// Unmapped by its own owner after `deinit` has removed the framebuffer and the handle:
    /// the kernel keeps a dumb buffer's memory until its last mapping goes.
    private let mapping: MemoryMapping
    var pixels: UnsafeMutableRawPointer { mapping.address }

    /// XRGB8888 as a DRM fourcc: 'X' 'R' '2' '4' (the C macro does not import into Swift).
    static let formatXRGB8888: UInt32 = 0x3432_5258

    init(card: DRMCard, width: Int, height: Int) throws(DRMError) {
        self.card = card
        self.width = width
        self.height = height
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        let created = drmModeCreateDumbBuffer(card.fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size)
        guard created == 0 else {
            throw .failed("drmModeCreateDumbBuffer", result: created, advice: "The driver may not offer dumb buffers")
        }
        var framebuffer: UInt32 = 0
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        let added = withUnsafeMutablePointer(to: &handles) { handlesPointer in
            withUnsafeMutablePointer(to: &pitches) { pitchesPointer in
                withUnsafeMutablePointer(to: &offsets) { offsetsPointer in
                    drmModeAddFB2(card.fd, UInt32(width), UInt32(height), Self.formatXRGB8888,
                                  UnsafeRawPointer(handlesPointer).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(pitchesPointer).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(offsetsPointer).assumingMemoryBound(to: UInt32.self), &framebuffer, 0)
                }
            }
        }
        guard added == 0 else {
            let error = DRMError.failed("drmModeAddFB2", result: added)
            drmModeDestroyDumbBuffer(card.fd, handle)
            throw error
        }
        var offset: UInt64 = 0
        let mapped = drmModeMapDumbBuffer(card.fd, handle, &offset)
        guard mapped == 0 else {
            let error = DRMError.failed("drmModeMapDumbBuffer", result: mapped)
            drmModeRmFB(card.fd, framebuffer)
            drmModeDestroyDumbBuffer(card.fd, handle)
            throw error
        }
        let mapping: MemoryMapping
        do throws(SystemCallError) {
            mapping = try MemoryMapping(sharing: card.fd, length: Int(size), offset: off_t(offset), name: card.path)
        } catch {
            drmModeRmFB(card.fd, framebuffer)
            drmModeDestroyDumbBuffer(card.fd, handle)
            throw DRMError(error)
        }
        memset(mapping.address, 0, Int(size))
        self.handle = handle
        self.pitch = Int(pitch)
        self.framebuffer = framebuffer
        self.mapping = mapping
    }

    deinit {
        drmModeRmFB(card.fd, framebuffer)
        drmModeDestroyDumbBuffer(card.fd, handle)
    }

    /// Copies a frame of exactly this size in, row by row (the pitch may exceed width * 4).
    /// Writes only: scanout memory is often write-combined, so it is never read back.
    func write(_ frame: [UInt32]) {
        frame.withUnsafeBytes { source in
            let rowBytes = width * 4
            if pitch == rowBytes {
                pixels.copyMemory(from: source.baseAddress!, byteCount: rowBytes * height)
            } else {
                for row in 0..<height {
                    (pixels + row * pitch).copyMemory(from: source.baseAddress! + row * rowBytes, byteCount: rowBytes)
                }
            }
        }
    }
}
