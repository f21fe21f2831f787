import Foundation
import NookTestTraits
import Testing

/// B1 on the board: the beeper's udev rule, the ALSA group and the unit's devices; and every C
/// library the package links is installed wherever Nook is built: the developer's machine, the
/// arm64 sysroot of the cross build, and the Debian packages' build.
@Suite("B1 sound hardware and its libraries", .ownThreads)
struct SoundHardwareTests {
    func text(_ path: String) throws -> String { try String(contentsOfFile: repository + "/" + path, encoding: .utf8) }

    @Test(arguments: [
        (FakeDevice(subsystem: "input", kernel: "event1", parentDrivers: ["pwm-beeper"], parentAttributes: [["name": "pwm-beeper"]]), true),
        (FakeDevice(subsystem: "input", kernel: "event3", parentDrivers: ["gpio-beeper"], parentAttributes: [["name": "buzzer"]]), true),
        (FakeDevice(subsystem: "input", kernel: "event5", parentDrivers: ["pcspkr"], parentAttributes: [["name": "PC Speaker"]]), true),
        (FakeDevice(subsystem: "input", kernel: "input1", parentDrivers: ["pwm-beeper"], parentAttributes: [["name": "pwm-beeper"]]), false),
        (FakeDevice(subsystem: "input", kernel: "event0", parentDrivers: ["atkbd"], parentAttributes: [["name": "AT Translated Set 2 keyboard"]],
                    properties: ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1"]), false),
    ])
    func b1_theBeepersEventNodeIsTheNookGroupsAndNoOtherInputDevice(device: FakeDevice, granted: Bool) throws {
        let rules = try UdevRule.parse(try text("udev/70-nook.rules"))
        let granting = rules.filter { $0.matches(device) }
        #expect(!granting.isEmpty == granted, "\(device) named \(device.parentAttributes)")
        for rule in granting { #expect(rule.value("GROUP") == "nook" && rule.value("MODE") == "0660", "line \(rule.line)") }
    }

    @Test func b1_nookdMayWriteTheBeeperAndUseALSAsDevicesAsAMemberOfAudio() throws {
        let unit = try text("Hardware/systemd/nookd.service")
        for line in ["DeviceAllow=char-input rw", "DeviceAllow=char-alsa rw"] {
            #expect(unit.split(separator: "\n").contains { $0 == line }, "nookd.service lacks \(line)")
        }
        let users = try text("Hardware/sysusers/nook.conf").split(separator: "\n")
        #expect(users.contains("m nook audio"), "the nook user is not in the audio group ALSA's devices belong to")
    }

    @Test func b1_theBeeperOverlayCompilesAndMakesAPWMBeeperOnGPIO18() throws {
        let output = NSTemporaryDirectory() + "nook-beeper-\(getpid()).dtbo"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let compiled = try run("/usr/bin/dtc", ["-@", "-I", "dts", "-O", "dtb", "-o", output, repository + "/Hardware/overlays/nook-beeper-overlay.dts"])
        #expect(compiled.status == 0, "\(compiled.output)")
        let source = try run("/usr/bin/dtc", ["-I", "dtb", "-O", "dts", output]).output
        #expect(source.contains("compatible = \"pwm-beeper\";"), "\(source)")
        #expect(source.contains("brcm,pins = <0x12>;") && source.contains("brcm,function = <0x02>;"), "GPIO18 in ALT5 (PWM0): \(source)")
    }

    /// Each `.systemLibrary` of Package.swift with its Debian providers (`.apt([…])`).
    static func systemLibraries(_ package: String) -> [String: [String]] {
        var libraries: [String: [String]] = [:]
        for line in package.split(separator: "\n") where line.contains(".systemLibrary(") || line.contains("providers:") {
            guard let apt = line.range(of: ".apt([") else { continue }
            let inside = line[apt.upperBound...].prefix { $0 != "]" }
            let packages = inside.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
            libraries[packages.joined(separator: " ")] = packages
        }
        return libraries
    }

    /// The words of a Bash array `name=(…)` in `script`, comments left out.
    static func array(_ name: String, in script: String) -> [String] {
        guard let start = script.range(of: "\n" + name + "=(") else { return [] }
        var words: [String] = []
        for line in script[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let closed = code.contains(")")
            words += code.prefix { $0 != ")" }.split(separator: " ").map(String.init)
            if closed { break }
        }
        return words
    }

    @Test func b1_everySystemLibrarysDebianPackageIsInstalledForEveryBuild() throws {
        let package = try text("Package.swift")
        let providers = Self.systemLibraries(package).values.flatMap { $0 }
        #expect(providers.contains("libasound2-dev"), "ALSA's system library declares its Debian package")
        #expect(providers.count >= 8, "\(providers)")
        let installDeps = Self.array("build_packages", in: try text("Hardware/dev/install-deps"))
        let sysroot = Self.array("link_packages", in: try text("Hardware/dev/debian-roots"))
        let packageBuild = Self.array("build_depends", in: try text("Hardware/dev/package"))
        let control = try text("Hardware/debian/control")
        for provider in providers {
            #expect(installDeps.contains(provider), "install-deps' build_packages lack \(provider)")
            #expect(sysroot.contains(provider), "debian-roots' link_packages (the arm64 sysroot) lack \(provider)")
            #expect(packageBuild.contains(provider), "Hardware/dev/package's build_depends lack \(provider)")
            #expect(control.contains("               \(provider),"), "Hardware/debian/control's Build-Depends lack \(provider)")
        }
    }
}
