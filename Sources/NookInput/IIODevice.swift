#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// Finding an IIO device under sysfs and reading its attributes, shared by the proximity
/// sensor (I2) and the ambient light sensor (Z2), so both name a missing, unreadable or
/// renumbered device the same way.
enum IIODevice {
    /// The directory of the configured device, by path, by `iio:deviceN`, or by its `name`.
    /// With both, the device must carry the name: numbers follow the order devices appeared in,
    /// so after a re-probe `iio:device0` may be another sensor. `refusal` names devices nookd
    /// will not read; among several of one name, the first it will read is taken.
    static func directory(device: String?, name: String?, root: String,
                          refusal: (String) -> SensorProblem? = { _ in nil }) -> Result<String, SensorProblem> {
        if let device {
            let path = device.hasPrefix("/") ? device : root + "/" + device
            guard let wanted = name else { return .success(path) }
            switch attribute(path + "/name") {
            case .failure(let problem): return .failure(SensorProblem(.missing, problem.description))
            case .success(let actual) where actual != wanted:
                return .failure(SensorProblem(.unusable, "\(path) is named '\(actual)', not '\(wanted)': IIO devices are numbered in the order they appear, so this number may now belong to another sensor; configure the name alone"))
            case .success: return .success(path)
            }
        }
        guard let wanted = name else { return .failure(SensorProblem(.unusable, "neither a device nor a name is configured")) }
        let entries: [String]
        do { entries = try directoryEntries(root) } catch {
            return .failure(SensorProblem(.missing, "cannot list \(root): \(error)", errno: error.errno))
        }
        var matches: [(number: Int, path: String)] = []
        for entryName in entries {
            guard entryName.hasPrefix("iio:device"), let number = Int(entryName.dropFirst("iio:device".count)) else { continue }
            let path = root + "/" + entryName
            if case .success(let text) = attribute(path + "/name"), text == wanted { matches.append((number, path)) }
        }
        // The listing's order is the directory's, not the devices': take the lowest number, always,
        // passing over a chip nookd refuses to read when another of the same name can be read.
        let ordered = matches.sorted { $0.number < $1.number }
        guard let first = ordered.first(where: { refusal($0.path) == nil }) ?? ordered.first else {
            return .failure(SensorProblem(.missing, "no IIO device named '\(wanted)' under \(root)"))
        }
        return .success(first.path)
    }

    /// A small sysfs attribute without its surrounding whitespace; errors name the call and errno.
    static func attribute(_ path: String) -> Result<String, SensorProblem> {
        let bytes: [UInt8]
        // sysfs reports every attribute as 4096 bytes long, whatever it holds.
        do { bytes = try readRegularFile(path, limit: 4096) } catch {
            switch error {
            case .systemCall(let failure):
                let absent = failure.call == "open" && (failure.errno == .noSuchFileOrDirectory || failure.errno == .notDirectory)
                return .failure(SensorProblem(absent ? .missing : .unreadable, failure.description, errno: failure.errno))
            case .notRegular:
                // A FIFO or device where an attribute should be: never opened for reading.
                return .failure(SensorProblem(.unusable, error.description))
            case .tooLarge:
                return .failure(SensorProblem(.unparseable, error.description))
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return .success(String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()))
    }
}

