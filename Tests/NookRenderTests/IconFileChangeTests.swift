#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// R3 U1: a PNG icon is kept by the file it was read from, not by its path: the same path sent
/// again after the file changed (written in place at the same size within the same second, or
/// another file renamed over it) shows the new picture.
@Suite("R3 U1 a PNG icon written again at its path", .cpuBound)
struct IconFileChangeTests {
    init() { pinFonts() }

    let red = RGB(hex: 0xFF0000).pixel

    /// A directory of this test's own.
    func directory() throws -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/nook-icon-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        _ = try #require(made, "mkdtemp: errno \(errno)")
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `png` made `length` bytes long by a private ancillary chunk (`npAd`, which decoders
    /// skip) before its end: pictures of different colours then have one size, the case where
    /// only the modification time tells two files apart.
    func padded(_ png: [UInt8], to length: Int) throws -> [UInt8] {
        let data = length - png.count - 12
        try #require(data >= 0)
        var chunk = Array("npAd".utf8) + [UInt8](repeating: 0, count: data)
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in chunk {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        chunk = bigEndian(UInt32(data)) + chunk + bigEndian(crc)
        return Array(png.dropLast(12)) + chunk + png.suffix(12)
    }

    func png(_ pixel: UInt32, in directory: String) throws -> [UInt8] {
        let path = directory + "/encoded-\(pixel).png"
        try PNG.write(Frame(width: 64, height: 64, fill: pixel), to: path)
        defer { unlink(path) }
        return try #require(read(path))
    }

    func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// Writes `bytes` into the file at `path`, in place if it is there (its inode kept).
    func overwrite(_ path: String, with bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0o644)
        try #require(descriptor >= 0, "open \(path): errno \(errno)")
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        try #require(written == bytes.count, "write: errno \(errno)")
    }

    func status(_ path: String) throws -> stat {
        var info = stat()
        try #require(stat(path, &info) == 0, "stat \(path): errno \(errno)")
        return info
    }

    func setModified(_ path: String, _ time: timespec) throws {
        var times = [time, time]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0, "utimensat: errno \(errno)")
    }

    func iconCentre(_ rig: ScreenUpdateTests.Rig, _ activity: NookActivity) throws -> UInt32 {
        let glass = try #require(rig.display.lastFrame).frame
        let icon = CardRenderer(theme: .dark).render(activity, size: glass.size).layout.icon
        return glass[icon.x + icon.width / 2, icon.y + icon.height / 2]
    }

    @Test func r3_u1_aPNGChangedAtTheSamePathIsDrawnAnewByAnUpdateAndByTheNextCard() async throws {
        let folder = try directory()
        let path = folder + "/a.png"
        defer {
            unlink(path)
            rmdir(folder)
        }
        let (blue, green) = (RGB(hex: 0x0000FF).pixel, RGB(hex: 0x00FF00).pixel)
        let encoded = try [red, blue, green].map { try png($0, in: folder) }
        let length = (encoded.map(\.count).max() ?? 0) + 12
        let (redBytes, blueBytes, greenBytes) = (try padded(encoded[0], to: length), try padded(encoded[1], to: length),
                                                 try padded(encoded[2], to: length))
        try overwrite(path, with: redBytes)

        let rig = await ScreenUpdateTests.Rig(size: PixelSize(width: 1280, height: 400), localTime: ScreenUpdateTests().noon)
        defer { rig.feeder.cancel() }
        var build = ScreenUpdateTests().card("Building", progress: 0.1)
        build.systemImage = path
        rig.send(build, .animateIn)
        rig.send(build, .presented)
        await rig.runUntil(frames: 3)
        #expect(try iconCentre(rig, build) == red)

        // Written again in place: the same inode and size, the same second, 1 ns apart.
        let before = try status(path)
        try overwrite(path, with: blueBytes)
        var time = before.st_mtim
        time.tv_nsec = time.tv_nsec == 999_999_999 ? time.tv_nsec - 1 : time.tv_nsec + 1
        try setModified(path, time)
        let after = try status(path)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
        var previous = build
        build.progress = 0.2
        rig.send(build, .updated(previous: previous))
        await rig.runUntil(frames: 4)
        #expect(try iconCentre(rig, build) == blue, "an update of the card shows the picture now at its path")
        let glass = try #require(rig.display.lastFrame).frame
        #expect(PartialRedrawTests.difference(glass, CardRenderer(theme: .dark).render(build, size: glass.size).frame) == nil)

        // Another file renamed over it with the very same size and times: only the inode differs.
        try overwrite(path + ".new", with: greenBytes)
        try setModified(path + ".new", after.st_mtim)
        #expect(rename(path + ".new", path) == 0)
        previous = build
        build.progress = 0.3
        rig.send(build, .updated(previous: previous))
        await rig.runUntil(frames: 5)
        #expect(try iconCentre(rig, build) == green, "a file renamed over the path is another file")

        // Unchanged since: an update keeps showing it.
        previous = build
        build.progress = 0.4
        rig.send(build, .updated(previous: previous))
        await rig.runUntil(frames: 6)
        #expect(try iconCentre(rig, build) == green)

        // The next card with the same path after the file changed again shows the new picture.
        try overwrite(path, with: redBytes)
        var next = ScreenUpdateTests().card("Built", progress: nil)
        next.systemImage = path
        rig.send(build, .animateOut)
        rig.send(build, .hidden(.dismissed))
        rig.send(next, .animateIn)
        rig.send(next, .presented)
        await rig.runUntil(frames: 9)
        #expect(try iconCentre(rig, next) == red)
    }
}
