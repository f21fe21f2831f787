import NookActivities
import NookSystem

/// Where the reader's touch device comes from: the kernel's evdev nodes, or a test's stand-in.
protocol TouchDeviceSource: Sendable {
    /// The device to read, or a sentence saying why there is none; `note` is told, once each,
    /// about devices passed over.
    func find(_ wanted: String?, note: (String) -> Void) -> Result<TouchDevice, TouchFindProblem>
}

struct TouchFindProblem: Error, Equatable, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Touchscreens among `/dev/input/event*`: the configured path, the device with the configured
/// name, or the first whose capabilities say touchscreen.
final class EvdevTouchSource: TouchDeviceSource {
    let directory: String
    /// Devices already named in the log as passed over (path and name), so a rescan every
    /// second does not repeat them.
    private let noted = Locked<Set<String>>([])

    init(directory: String) { self.directory = directory }

    static let accessHint = "the user nookd runs as needs the `nook` group (udev/70-nook.rules gives it touchscreens) or the `input` group"

    func find(_ wanted: String?, note: (String) -> Void) -> Result<TouchDevice, TouchFindProblem> {
        if let wanted, wanted.contains("/") {
            switch TouchDevice.open(wanted, configured: true) {
            case .success(let device): return .success(device)
            case .failure(let problem): return .failure(TouchFindProblem(describe(problem)))
            }
        }
        let names = ((try? directoryEntries(directory)) ?? []).filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? .max, $0) < (Int($1.dropFirst(5)) ?? .max, $1) }
        var denied: [String] = []
        var matchedButUnusable: String?
        for entry in names {
            let path = directory + "/" + entry
            switch TouchDevice.open(path, configured: wanted != nil) {
            case .success(let device):
                guard let wanted else { return .success(device) }
                if device.name == wanted { return .success(device) }
            case .failure(.notPermitted):
                denied.append(path)
            case .failure(.notTouch(_, let name, let why)):
                if let wanted, name == wanted {
                    matchedButUnusable = "\(path) (\(wanted)): \(why)"
                } else if wanted == nil {
                    let key = path + "\u{0}" + (name ?? "")
                    if noted.withLock({ $0.insert(key).inserted }) {
                        note("touch: passing over \(path) (\(name ?? "unnamed")): \(why)")
                    }
                }
            case .failure:
                continue
            }
        }
        if let matchedButUnusable { return .failure(TouchFindProblem("not a usable touchscreen: \(matchedButUnusable)")) }
        let what = wanted.map { "no input device named \"\($0)\"" } ?? "no touchscreen"
        if !denied.isEmpty {
            return .failure(TouchFindProblem("\(what) among those readable in \(directory); no access to \(denied.joined(separator: ", ")): \(Self.accessHint)"))
        }
        return .failure(TouchFindProblem("\(what) in \(directory)"))
    }

    private func describe(_ problem: TouchOpenProblem) -> String {
        switch problem {
        case .missing(let text), .unusable(let text): text
        case .notPermitted(let text): "\(text): \(Self.accessHint)"
        case .notTouch(let path, let name, let why): "not a usable touchscreen: \(path)\(name.map { " (\($0))" } ?? ""): \(why)"
        }
    }
}
