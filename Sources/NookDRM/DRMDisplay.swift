internal import CDRM
#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookSystem

/// The real display path (D1): a connector's mode on a CRTC, two XRGB8888 dumb buffers, and
/// page flips paced by the flip events of vblank (R5). A driver that cannot flip (or a
/// `Selection` that says not to) gets one buffer drawn in place and `drmModeDirtyFB`, paced to
/// the mode's refresh rate on the clock. The CRTC found at start is restored by `restore()`
/// and, as a last resort, when the display is released.
///
/// Every libdrm call runs on one serial thread (a `SerialWorker`), the only place the buffers
/// and the front index are touched; a present waits there for its flip event without blocking
/// Swift's executors.
public final class DRMDisplay: DisplayBackend, @unchecked Sendable {
    /// What to drive; nil fields mean "the first card with a connected connector", "the first
    /// connected connector", "the preferred mode".
    public struct Selection: Hashable, Sendable {
        public var card: String?
        public var connector: String?
        /// `WIDTHxHEIGHT` or `WIDTHxHEIGHT@HZ`.
        public var mode: String?
        /// False draws into one buffer and marks it dirty even where the driver flips pages:
        /// for a driver whose flip events do not come (each frame would wait out its timeout).
        public var pageFlip: Bool
        public init(card: String? = nil, connector: String? = nil, mode: String? = nil, pageFlip: Bool = true) {
            (self.card, self.connector, self.mode, self.pageFlip) = (card, connector, mode, pageFlip)
        }
    }

    public let mode: DisplayMode
    /// The connector's `panel orientation` property as a clockwise turn to apply (R6).
    public let panelOrientation: Rotation
    /// True when the driver flips pages with events; false means single buffer + dirty-fb.
    public var flipsPages: Bool { queue.sync { pageFlipping } }

    private let selection: Selection
    private let queue = SerialWorker(name: "nook.drm")
    // The card and everything made on it: replaced together (on the queue) when the device
    // vanished and a new one appeared (Q15), so they are not constants.
    private var card: DRMCard
    private var connectorID: UInt32
    private var crtcID: UInt32
    private var modeInfo: drmModeModeInfo
    private var buffers: [DumbBuffer]
    private var front = 0
    private var saved: SavedCRTC?
    private var dpmsProperty: UInt32?
    private var pageFlipping: Bool
    private var restored = false
    /// DPMS is off (idle blanking): the CRTC is inactive, and the kernel refuses a page flip
    /// with an event on it (EINVAL), so presents go into the front buffer unflipped; turning
    /// DPMS on again scans out that buffer, the newest frame.
    private var poweredOff = false
    private var flips = PageFlipCounts()
    /// A requested flip whose event has not been read yet (it came later than the bound).
    private var flipOutstanding = false
    /// Refresh slots for presents without flips (nil while the display flips pages), which
    /// would otherwise return as soon as the frame is written; read by `present` before it
    /// goes onto the queue, so kept apart from the queue's state.
    private let pacing: Locked<RefreshPacer?>
    private let clock: any NookClock

    /// Counted only where the display flips pages (nil where it draws in place).
    public var pageFlips: PageFlipCounts? { queue.sync { pageFlipping ? flips : nil } }

    public init(selection: Selection = Selection(), clock: any NookClock = NookSystemClock()) throws(DRMError) {
        let setup = try Self.setUp(selection)
        self.selection = selection
        self.clock = clock
        pacing = Locked(setup.flipsPages ? nil : RefreshPacer(refreshHz: setup.found.mode.refreshHz))
        (card, connectorID, crtcID, modeInfo, mode, panelOrientation, dpmsProperty) =
            (setup.found.card, setup.found.connector, setup.found.crtc, setup.found.modeInfo, setup.found.mode,
             setup.found.orientation, setup.found.dpms)
        (buffers, saved, pageFlipping) = (setup.buffers, setup.saved, setup.flipsPages)
    }

    private struct Setup {
        var found: Found
        var buffers: [DumbBuffer]
        var saved: SavedCRTC?
        var flipsPages: Bool
    }

    /// Tries each card in turn (or only the configured one): the first with a usable connected
    /// connector gets its CRTC saved, a cleared buffer shown, and a second buffer if it flips.
    private static func setUp(_ selection: Selection) throws(DRMError) -> Setup {
        let paths = selection.card.map { [$0] } ?? DRMCard.cardPaths()
        guard !paths.isEmpty else { throw DRMError("find a DRM card", advice: "No /dev/dri/card* exists: no DRM display driver is loaded") }
        var lastError = DRMError("find a connected connector", advice: "No card in \(paths.joined(separator: ", ")) has a connected connector")
        for path in paths {
            do throws(DRMError) {
                var found = try open(path, selection: selection)
                let saved = SavedCRTC(card: found.card, crtcID: found.crtc)
                var buffers = [try DumbBuffer(card: found.card, width: found.mode.size.width, height: found.mode.size.height)]
                var connector = found.connector
                let set = drmModeSetCrtc(found.card.fd, found.crtc, buffers[0].framebuffer, 0, 0, &connector, 1, &found.modeInfo)
                guard set == 0 else { throw DRMError.failed("drmModeSetCrtc", result: set) }
                // A second buffer only where the driver flips pages (and flips are wanted);
                // otherwise draw in place.
                let flipsPages = selection.pageFlip
                    && drmModePageFlip(found.card.fd, found.crtc, buffers[0].framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), nil) == 0
                if flipsPages {
                    waitForIdleFlip(found.card.fd)
                    do throws(DRMError) {
                        buffers.append(try DumbBuffer(card: found.card, width: found.mode.size.width, height: found.mode.size.height))
                    } catch {
                        restoreCRTC(found.card, crtc: found.crtc, connector: found.connector, saved: saved)
                        throw error
                    }
                }
                return Setup(found: found, buffers: buffers, saved: saved, flipsPages: flipsPages)
            } catch {
                lastError = error
                if selection.card != nil { throw error }
            }
        }
        throw lastError
    }

    deinit { restore() }

    private struct Found {
        var card: DRMCard, connector: UInt32, crtc: UInt32, modeInfo: drmModeModeInfo, mode: DisplayMode
        var orientation: Rotation, dpms: UInt32?
    }

    private static func open(_ path: String, selection: Selection) throws(DRMError) -> Found {
        let card = try DRMCard(path: path)
        guard card.isMaster else {
            throw DRMError("DRM master on \(path)", advice: "The device is busy: another program (a compositor, a display manager or another nookd) drives it")
        }
        guard card.capability(Int32(DRM_CAP_DUMB_BUFFER)) == 1 else {
            throw DRMError("DRM_CAP_DUMB_BUFFER on \(path)", advice: "The driver offers no dumb buffers")
        }
        let resources: UnsafeMutablePointer<drmModeRes>
        do throws(SystemCallError) {
            resources = try systemCall("drmModeGetResources", subject: path, returning: { drmModeGetResources(card.fd) })
        } catch {
            throw DRMError(error)
        }
        defer { drmModeFreeResources(resources) }
        var names: [String] = []
        for index in 0..<Int(resources.pointee.count_connectors) {
            guard let connector = drmModeGetConnector(card.fd, resources.pointee.connectors[index]) else { continue }
            defer { drmModeFreeConnector(connector) }
            let name = connectorName(connector)
            names.append(name + (connector.pointee.connection == DRM_MODE_CONNECTED ? " (connected)" : ""))
            if let wanted = selection.connector, wanted != name { continue }
            guard connector.pointee.connection == DRM_MODE_CONNECTED, connector.pointee.count_modes > 0 else { continue }
            let modeInfo = try chooseMode(connector, wanted: selection.mode, connectorName: name)
            guard let crtc = findCRTC(card: card, resources: resources, connector: connector) else {
                throw DRMError("find a CRTC for \(name)", advice: "Every CRTC this connector can use is busy")
            }
            let size = PixelSize(width: Int(modeInfo.hdisplay), height: Int(modeInfo.vdisplay))
            // Panels whose driver does not know their timing (the SPI panels' DRM_SIMPLE_MODE:
            // a 1 kHz pixel clock) report 0 Hz; 60 paces their slides as on any other panel.
            let refreshHz = modeInfo.vrefresh > 0 ? Double(modeInfo.vrefresh) : 60
            let mode = DisplayMode(size: size, refreshHz: refreshHz, name: name)
            return Found(card: card, connector: connector.pointee.connector_id, crtc: crtc, modeInfo: modeInfo, mode: mode,
                         orientation: panelOrientation(card: card, connector: connector),
                         dpms: property(named: "DPMS", card: card, connector: connector)?.id)
        }
        let wanted = selection.connector.map { "connector \($0)" } ?? "a connected connector"
        throw DRMError("find \(wanted) on \(path)", advice: "Connectors: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
    }

    /// `HDMI-A-1`, `Virtual-1`: the kernel's type name and the type's index.
    static func connectorName(_ connector: UnsafeMutablePointer<drmModeConnector>) -> String {
        let type = drmModeGetConnectorTypeName(connector.pointee.connector_type).map { String(cString: $0) } ?? "Unknown"
        return "\(type)-\(connector.pointee.connector_type_id)"
    }

    private static func chooseMode(_ connector: UnsafeMutablePointer<drmModeConnector>, wanted: String?, connectorName: String) throws(DRMError) -> drmModeModeInfo {
        let modes = (0..<Int(connector.pointee.count_modes)).map { connector.pointee.modes[$0] }
        guard !modes.isEmpty else {
            throw DRMError("choose a mode on \(connectorName)", advice: "The connector offers no modes: check the panel's EDID, or force one with video= on the kernel command line")
        }
        guard let wanted else {
            return modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes[0]
        }
        let parts = wanted.split(separator: "@")
        guard let first = parts.first, let size = PixelSize(parsing: String(first)) else {
            throw DRMError("parse mode '\(wanted)'", advice: "A mode is WIDTHxHEIGHT or WIDTHxHEIGHT@HZ")
        }
        let hertz = parts.count > 1 ? UInt32(parts[1]) : nil
        if let match = modes.first(where: { Int($0.hdisplay) == size.width && Int($0.vdisplay) == size.height && (hertz == nil || $0.vrefresh == hertz!) }) {
            return match
        }
        let offered = modes.map { "\($0.hdisplay)x\($0.vdisplay)@\($0.vrefresh)" }.joined(separator: ", ")
        throw DRMError("find mode \(wanted) on \(connectorName)", advice: "It offers \(offered)")
    }

    /// The connector's current CRTC if it has one, else the first free CRTC its encoders can drive.
    private static func findCRTC(card: DRMCard, resources: UnsafeMutablePointer<drmModeRes>, connector: UnsafeMutablePointer<drmModeConnector>) -> UInt32? {
        if connector.pointee.encoder_id != 0, let encoder = drmModeGetEncoder(card.fd, connector.pointee.encoder_id) {
            defer { drmModeFreeEncoder(encoder) }
            if encoder.pointee.crtc_id != 0 { return encoder.pointee.crtc_id }
        }
        for index in 0..<Int(connector.pointee.count_encoders) {
            guard let encoder = drmModeGetEncoder(card.fd, connector.pointee.encoders[index]) else { continue }
            defer { drmModeFreeEncoder(encoder) }
            for crtc in 0..<Int(resources.pointee.count_crtcs) where encoder.pointee.possible_crtcs & (1 << crtc) != 0 {
                return resources.pointee.crtcs[crtc]
            }
        }
        return nil
    }

    private static func property(named name: String, card: DRMCard, connector: UnsafeMutablePointer<drmModeConnector>) -> (id: UInt32, value: UInt64, names: [UInt64: String])? {
        for index in 0..<Int(connector.pointee.count_props) {
            guard let property = drmModeGetProperty(card.fd, connector.pointee.props[index]) else { continue }
            defer { drmModeFreeProperty(property) }
            let propertyName = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard propertyName == name else { continue }
            var names: [UInt64: String] = [:]
            for item in 0..<Int(property.pointee.count_enums) {
                let entry = property.pointee.enums[item]
                names[entry.value] = withUnsafeBytes(of: entry.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            return (property.pointee.prop_id, connector.pointee.prop_values[index], names)
        }
        return nil
    }

    /// The kernel names how the panel sits in its case; this is the turn that makes content upright.
    private static func panelOrientation(card: DRMCard, connector: UnsafeMutablePointer<drmModeConnector>) -> Rotation {
        guard let property = property(named: "panel orientation", card: card, connector: connector) else { return .none }
        switch property.names[property.value] {
        case "Upside Down": return .half
        case "Left Side Up": return .threeQuarters
        case "Right Side Up": return .quarter
        default: return .none
        }
    }

    // MARK: Presenting

    public func present(_ frame: Frame) async throws(DisplayError) {
        guard frame.size == mode.size else {
            throw DisplayError(operation: "present", detail: "frame is \(frame.size) but \(mode.name) runs \(mode.size)")
        }
        // Without flips nothing waits for a vblank: wait for the frame's refresh slot instead.
        if let slot = pacing.withLock({ $0?.slot(readyAt: clock.now) }) {
            try? await clock.sleep(until: slot)
        }
        let pixels = frame.pixels
        let result: DisplayError? = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.showOnQueue(pixels)) }
        }
        if let result { throw result }
    }

    /// On the queue: draw into the back buffer and flip to it, waiting for the flip event; or,
    /// without flips, draw into the only buffer and mark it dirty.
    private func showOnQueue(_ pixels: [UInt32]) -> DisplayError? {
        guard !restored else { return DisplayError(operation: "present", detail: "the display was restored and released") }
        if poweredOff {
            buffers[front].write(pixels)
            return nil
        }
        guard pageFlipping else {
            buffers[0].write(pixels)
            let dirty = drmModeDirtyFB(card.fd, buffers[0].framebuffer, nil, 0)
            // A driver without dirty-rectangle support shows the buffer as written.
            if dirty < 0, let failure = DRMError.failed("drmModeDirtyFB", result: dirty).errno,
               failure != .notImplemented, failure != .notSupported {
                return DisplayError(SystemCallError("drmModeDirtyFB", errno: failure))
            }
            return nil
        }
        // A flip whose event was late is still the kernel's until its event is read: a new
        // flip before then fails with EBUSY, and the late event would be taken for the new one's.
        if flipOutstanding {
            guard Self.waitForIdleFlip(card.fd, timeoutMilliseconds: Self.flipEventBound) else {
                flips.timedOut += 1
                flipOutstanding = false
                return DisplayError(operation: "present", detail: "the previous page flip's event never came")
            }
            flips.completed += 1
            flipOutstanding = false
        }
        let back = 1 - front
        buffers[back].write(pixels)
        let flipped = drmModePageFlip(card.fd, crtcID, buffers[back].framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), nil)
        guard flipped == 0 else { return DisplayError(SystemCallError("drmModePageFlip")) }
        flips.requested += 1
        // Paced by the event (R5). One that has not come within the bound (a guest or a board
        // too busy to deliver it) is collected before the next flip rather than counted lost.
        if Self.waitForIdleFlip(card.fd, timeoutMilliseconds: Self.flipEventBound) {
            flips.completed += 1
        } else {
            flipOutstanding = true
        }
        front = back
        return nil
    }

    /// How long one flip's event is waited for before the frame counts as shown anyway. A
    /// panel's event comes within its refresh period; this bound only stops a driver that never
    /// sends one from holding the display loop, well inside the watchdog's period.
    static let flipEventBound: Int32 = 1000

    /// Waits for the pending flip's event, which arrives at vblank; true if it came.
    @discardableResult
    private static func waitForIdleFlip(_ fd: Int32, timeoutMilliseconds: Int32 = flipEventBound) -> Bool {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, _, _, _ in }
        var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        let ready = (try? pollDescriptors(&entries, timeoutMilliseconds: timeoutMilliseconds)) ?? 0
        return ready > 0 && drmHandleEvent(fd, &context) == 0
    }

    public func setBlanked(_ blanked: Bool) async throws(DisplayError) {
        let result: DisplayError? = await withCheckedContinuation { continuation in
            queue.async {
                guard let property = self.dpmsProperty else { return continuation.resume(returning: nil) }
                let set = drmModeConnectorSetProperty(self.card.fd, self.connectorID, property, blanked ? 3 : 0)
                if set == 0 { self.poweredOff = blanked }
                continuation.resume(returning: set == 0 ? nil : DisplayError(SystemCallError("drmModeConnectorSetProperty(DPMS)")))
            }
        }
        if let result { throw result }
    }

    /// Puts back the CRTC configuration found at start (the console's framebuffer, usually).
    /// Idempotent; after it, presents fail.
    public func restore() {
        queue.sync {
            guard !restored else { return }
            restored = true
            Self.restoreCRTC(card, crtc: crtcID, connector: connectorID, saved: saved)
        }
    }

    /// Sets the CRTC back to `saved`, or switches it off if nothing was shown before.
    private static func restoreCRTC(_ card: DRMCard, crtc: UInt32, connector: UInt32, saved: SavedCRTC?) {
        var connectorID = connector
        if let saved = saved?.crtc, saved.pointee.mode_valid != 0 {
            var savedMode = saved.pointee.mode
            _ = drmModeSetCrtc(card.fd, crtc, saved.pointee.buffer_id, saved.pointee.x, saved.pointee.y, &connectorID, 1, &savedMode)
        } else {
            _ = drmModeSetCrtc(card.fd, crtc, 0, 0, 0, nil, 0, nil)
        }
    }

    /// Checks the connector once a second (without forcing a probe) and reports when it is
    /// unplugged or plugged back in; on reconnection the mode is set again first (Q15). A
    /// device that vanished (a USB or SPI display unplugged, a PCI device removed: its ioctls
    /// fail with ENODEV) is looked for again each second as at start; when one with the same
    /// mode size appears it replaces the old one and the display counts as back.
    public func connectionChanges() -> AsyncStream<Bool> {
        AsyncStream { continuation in
            let watcher = Task.detached { [weak self] in
                var connected = true
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let self, let state = self.connectorState() else { return }
                    let now = state == .gone ? self.replaceVanishedCard() : state == .connected
                    if now != connected {
                        connected = now
                        if now && state != .gone { self.setModeAgain() }
                        continuation.yield(now)
                    }
                }
            }
            continuation.onTermination = { _ in watcher.cancel() }
        }
    }

    private enum ConnectorState { case connected, disconnected, gone }

    /// nil once the display has been restored and released.
    private func connectorState() -> ConnectorState? {
        queue.sync {
            guard !restored else { return nil }
            guard let connector = drmModeGetConnectorCurrent(card.fd, connectorID) else {
                return Errno.current == .noSuchDevice ? .gone : .disconnected
            }
            defer { drmModeFreeConnector(connector) }
            return connector.pointee.connection == DRM_MODE_CONNECTED ? .connected : .disconnected
        }
    }

    /// Sets up a display as at start, on whichever card now has one; true when it took the
    /// vanished card's place. A mode of another size is not taken (every frame is drawn for
    /// this one), and what that display showed is put back at once. The old card's buffers and
    /// descriptor are released with it (its device node is gone; closing frees its minor).
    private func replaceVanishedCard() -> Bool {
        queue.sync {
            guard !restored, let setup = try? Self.setUp(selection) else { return false }
            guard setup.found.mode.size == mode.size else {
                Self.restoreCRTC(setup.found.card, crtc: setup.found.crtc, connector: setup.found.connector, saved: setup.saved)
                return false
            }
            (card, connectorID, crtcID, modeInfo, dpmsProperty) =
                (setup.found.card, setup.found.connector, setup.found.crtc, setup.found.modeInfo, setup.found.dpms)
            (buffers, saved, pageFlipping, front, poweredOff) = (setup.buffers, setup.saved, setup.flipsPages, 0, false)
            pacing.withLock { $0 = setup.flipsPages ? nil : RefreshPacer(refreshHz: setup.found.mode.refreshHz) }
            return true
        }
    }

    private func setModeAgain() {
        queue.sync {
            guard !restored else { return }
            var connector = connectorID
            _ = drmModeSetCrtc(card.fd, crtcID, buffers[front].framebuffer, 0, 0, &connector, 1, &modeInfo)
        }
    }

    /// The framebuffer the CRTC scanned out before this display took it (0 if it was off):
    /// what `restore()` puts back.
    public var framebufferFoundAtStart: UInt32 { queue.sync { saved?.crtc.pointee.buffer_id ?? 0 } }

    /// The CRTC's framebuffer id right now, as the kernel reports it (for tests of `restore`).
    public var currentFramebuffer: UInt32 {
        queue.sync {
            guard let crtc = drmModeGetCrtc(card.fd, crtcID) else { return 0 }
            defer { drmModeFreeCrtc(crtc) }
            return crtc.pointee.buffer_id
        }
    }
}
