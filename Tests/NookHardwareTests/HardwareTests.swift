import Foundation
import NookTestTraits
import Testing

let repository = BuiltProducts.repository

func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe.closedOnExec()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.runAlone()
    let data = pipe.fileHandleForReading.readToEndOfFile()
    process.waitForExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Suite("N3 udev rules", .ownThreads)
struct UdevRulesTests {
    let rules: [UdevRule] = {
        let text = try! String(contentsOfFile: repository + "/udev/70-nook.rules", encoding: .utf8)
        return try! UdevRule.parse(text)
    }()

    @Test func n3_everyRuleGrantsTheNookGroupReadWriteAndTagsForSystemd() throws {
        #expect(rules.count == 10)
        for rule in rules where !rule.matches.contains(where: { $0.value == "backlight" }) {
            #expect(rule.value("GROUP") == "nook", "line \(rule.line)")
            #expect(rule.value("MODE") == "0660", "line \(rule.line): owner and group only")
            #expect(rule.assignments.contains { $0.key == "TAG" && $0.op == "+=" && $0.value == "systemd" }, "line \(rule.line)")
            #expect(rule.matches.contains { $0.key == "SUBSYSTEM" }, "line \(rule.line) names its subsystem")
            #expect(rule.matches.contains { $0.key == "DRIVERS" || $0.key == "ATTR" || $0.key == "ENV" }, "line \(rule.line) is narrowed below the class")
        }
        #expect(rules.first { $0.matches.contains { $0.value == "drm" } }?.assignments.contains { $0.key == "SYMLINK" && $0.value == "nook/display" } == true)
    }

    @Test func z2_theBacklightRuleGivesOnlyItsBrightnessFileToTheNookGroup() throws {
        let rule = try #require(rules.first { $0.matches.contains { $0.key == "SUBSYSTEM" && $0.value == "backlight" } })
        let runs = rule.assignments.filter { $0.key == "RUN" }.map(\.value)
        #expect(runs == ["/bin/chgrp nook /sys%p/brightness", "/bin/chmod 0664 /sys%p/brightness"])
    }

    @Test func n3_theParserRejectsWhatUdevWould() {
        for bad in ["SUBSYSTEM==drm, GROUP=\"nook\"", "SUBSYSTEM==\"drm\" GROUP=\"nook\"", "OWNER==\"root\"", "ATTR{name\"==\"x\""] {
            #expect(throws: UdevError.self, "\(bad)") { try UdevRule.parse(bad) }
        }
    }

    @Test(arguments: [
        (FakeDevice(subsystem: "drm", kernel: "card0", parentDrivers: ["vc4-drm", "simple-bus"]), true),
        (FakeDevice(subsystem: "drm", kernel: "card1", parentDrivers: ["virtio-pci"]), true),
        (FakeDevice(subsystem: "drm", kernel: "card2", parentDrivers: ["panel-mipi-dbi-spi", "spi-bcm2835"]), true),
        (FakeDevice(subsystem: "drm", kernel: "renderD128", parentDrivers: ["v3d"]), false),
        (FakeDevice(subsystem: "drm", kernel: "card0", parentDrivers: ["amdgpu"]), false),
        (FakeDevice(subsystem: "graphics", kernel: "fb1", parentDrivers: ["fb_st7789v"]), true),
        (FakeDevice(subsystem: "graphics", kernel: "fbcon", parentDrivers: []), false),
        (FakeDevice(subsystem: "gpio", kernel: "gpiochip0", parentDrivers: ["pinctrl-bcm2835"]), true),
        (FakeDevice(subsystem: "gpio", kernel: "gpiochip0", parentDrivers: ["rp1-pinctrl"]), true),
        (FakeDevice(subsystem: "gpio", kernel: "gpiochip3", parentDrivers: ["gpio-sim"]), true),
        (FakeDevice(subsystem: "gpio", kernel: "gpiochip2", parentDrivers: ["pca953x", "i2c-bcm2835"]), false),
        // IIO names as the drivers publish them: no device is ever named "vcnl4040".
        (FakeDevice(subsystem: "iio", kernel: "iio:device0", attributes: ["name": "vcnl4000"]), true),
        (FakeDevice(subsystem: "iio", kernel: "iio:device2", attributes: ["name": "ltr559"]), true),
        (FakeDevice(subsystem: "iio", kernel: "iio:device3", attributes: ["name": "apds9960"]), true),
        (FakeDevice(subsystem: "iio", kernel: "iio:device1", attributes: ["name": "bme280"]), false),
        (FakeDevice(subsystem: "iio", kernel: "iio:device4", attributes: ["name": "vcnl4035"]), false),
        (FakeDevice(subsystem: "tty", kernel: "ttyUSB0", parentDrivers: ["ftdi_sio"]), false),
        // L1, L2: LED chips on spidev and i2c-dev, and nothing else on those classes.
        (FakeDevice(subsystem: "spidev", kernel: "spidev0.0", parentDrivers: ["spidev", "spi-bcm2835"]), true),
        (FakeDevice(subsystem: "spidev", kernel: "spidev10.1", parentDrivers: ["spidev", "dw_spi_mmio"]), true),
        (FakeDevice(subsystem: "i2c-dev", kernel: "i2c-1", attributes: ["name": "bcm2835 (i2c@7e804000)"], parentDrivers: ["i2c-bcm2835"]), true),
        (FakeDevice(subsystem: "i2c-dev", kernel: "i2c-1", attributes: ["name": "Synopsys DesignWare I2C adapter"], parentDrivers: ["i2c_designware"]), true),
        (FakeDevice(subsystem: "i2c-dev", kernel: "i2c-0", attributes: ["name": "SMBus stub driver"]), true),
        (FakeDevice(subsystem: "i2c-dev", kernel: "i2c-11", attributes: ["name": "i2c-gpio"], parentDrivers: ["i2c-gpio"]), false),
        (FakeDevice(subsystem: "i2c-dev", kernel: "i2c-20", attributes: ["name": "DP-AUX"], parentDrivers: ["vc4_hdmi"]), false),
        // T1: touchscreens' event nodes, as udev's input_id classifies them; no other input.
        (FakeDevice(subsystem: "input", kernel: "event4", parentDrivers: ["Goodix-TS", "i2c-bcm2835"], properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]), true),
        (FakeDevice(subsystem: "input", kernel: "event12", properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]), true),
        (FakeDevice(subsystem: "input", kernel: "mouse1", properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]), false),
        (FakeDevice(subsystem: "input", kernel: "event0", parentDrivers: ["atkbd"], properties: ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1"]), false),
        (FakeDevice(subsystem: "input", kernel: "event6", parentDrivers: ["hid-multitouch"], properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1"]), false),
    ])
    func n3_eachRuleMatchesItsHardwareAndNotItsNeighbours(device: FakeDevice, granted: Bool) {
        #expect(rules.contains { $0.matches(device) } == granted, "\(device) with drivers \(device.parentDrivers)")
    }
}

/// The IIO `name` each supported proximity chip's Linux 6.12 driver publishes (its
/// `indio_dev->name`), which is what nookd's `name` and the udev rule must match.
let kernelIIONames: [String: String] = [
    "vcnl4000": "drivers/iio/light/vcnl4000.c: VCNL4000_DRV_NAME for every chip (VCNL4000/4010/4020/4040/4200)",
    "ltr559": "drivers/iio/light/ltr501.c: the i2c id's name, ltr559 for an LTR-559",
    "apds9960": "drivers/iio/light/apds9960.c: APDS9960_DRV_NAME",
]

@Suite("I2 N3 IIO names in the docs, example config and udev rule", .ownThreads)
struct IIONameTests {
    func text(_ path: String) throws -> String { try String(contentsOfFile: repository + "/" + path, encoding: .utf8) }

    /// The docs said `name = "vcnl4040"` and the rule listed vcnl4010/4035/4040,
    /// names no device ever has.
    @Test func i2_n3_theUdevRuleNamesExactlyTheIIONamesTheKernelPublishes() throws {
        let rules = try UdevRule.parse(try text("udev/70-nook.rules"))
        let iio = try #require(rules.first { $0.matches.contains { $0.key == "SUBSYSTEM" && $0.value == "iio" } })
        let names = try #require(iio.matches.first { $0.key == "ATTR" && $0.attribute == "name" }?.value)
        #expect(Set(names.split(separator: "|").map(String.init)) == Set(kernelIIONames.keys))
    }

    @Test(arguments: ["docs/inputs.md", "docs/room.md", "Hardware/README.md", "Hardware/nook.toml"])
    func i2_everyProximityNameInTheDocsIsOneTheKernelPublishes(path: String) throws {
        let document = try text(path)
        var named: [String] = []
        for match in document.matches(of: /name = "([a-z0-9]+)"|proximity:([a-z0-9]+)/) {
            if let name = match.output.1 ?? match.output.2 { named.append(String(name)) }
        }
        #expect(!named.isEmpty, "\(path) shows how to name a sensor")
        for name in named { #expect(kernelIIONames[name] != nil, "\(path) names '\(name)', which no 6.12 driver publishes") }
        for never in ["\"vcnl4040\"", "\"vcnl4010\"", "\"vcnl4035\""] { #expect(!document.contains("name = \(never)"), "\(path): \(never)") }
    }
}

@Suite("N3 service, overlay and install", .ownThreads)
struct ServiceTests {
    @Test func n3_theUnitIsHardenedToAnExposureOf2OrLess() throws {
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", repository + "/Hardware/systemd/nookd.service"])
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(result.output.suffix(500))")
        let score = try #require(line.split(separator: " ").compactMap { Double($0) }.last)
        print("nookd.service exposure: \(score)")
        #expect(score <= 2.0, "\(line)")
        let unit = try String(contentsOfFile: repository + "/Hardware/systemd/nookd.service", encoding: .utf8)
        for setting in ["Type=notify", "User=nook", "Restart=on-failure", "PrivateNetwork=yes", "RestrictAddressFamilies=AF_UNIX",
                        "DeviceAllow=char-drm rw", "DeviceAllow=char-gpiochip rw", "DeviceAllow=char-spi rw", "DeviceAllow=char-i2c rw",
                        "DeviceAllow=char-input r", "NoNewPrivileges=yes", "ProtectSystem=strict"] {
            #expect(unit.contains(setting), "\(setting)")
        }
    }

    @Test func n3_theOverlayCompilesAndNamesTheNookLines() throws {
        let output = NSTemporaryDirectory() + "nook-lines-\(getpid()).dtbo"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let compiled = try run("/usr/bin/dtc", ["-@", "-I", "dts", "-O", "dtb", "-o", output, repository + "/Hardware/overlays/nook-lines-overlay.dts"])
        #expect(compiled.status == 0, "\(compiled.output)")
        let source = try run("/usr/bin/dtc", ["-I", "dtb", "-O", "dts", output])
        let property = try #require(source.output.split(separator: "\n").first { $0.contains("gpio-line-names") })
        // dtc 1.6 (Debian 12) prints a string list as one string, "GPIO0\0GPIO1\0…"; dtc 1.7
        // (Debian 13) as a list, "GPIO0", "GPIO1", …: both are read.
        let value = property.drop { $0 != "=" }.prefix { $0 != ";" }
        let names = value.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }
            .flatMap { $0.element.components(separatedBy: "\\0") }
        // Required, not expected: the names below are read by index, and a short list would
        // crash the whole test process.
        try #require(names.count == 58, "\(property)")
        #expect(names[17] == "NOOK_OPEN" && names[27] == "NOOK_HOVER" && names[22] == "NOOK_DISMISS")
        #expect(source.output.contains("target = <0xffffffff>") || source.output.contains("__fixups__"), "refers to &gpio for the firmware to resolve")
    }

    @Test func n3_installAndUninstallIntoAStagingRootTouchExactlyTheirFiles() throws {
        let stage = NSTemporaryDirectory() + "nook-stage-\(getpid())"
        try? FileManager.default.removeItem(atPath: stage)
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let binaries = BuiltProducts.directory
        let install = try run(repository + "/Hardware/install", ["--destdir", stage, "--binaries", binaries])
        #expect(install.status == 0, "\(install.output)")
        let expected = ["/usr/local/bin/nookd", "/usr/local/bin/nookctl", "/etc/systemd/system/nookd.service",
                        "/etc/udev/rules.d/70-nook.rules", "/usr/lib/sysusers.d/nook.conf", "/etc/nook/nook.toml",
                        "/usr/share/bash-completion/completions/nookctl", "/usr/share/doc/nook/README.md",
                        "/usr/local/bin/nook-notify", "/etc/systemd/system/nook-notify.service", "/usr/lib/systemd/user/nook-notify.service",
                        "/usr/share/dbus-1/services/org.nook.Notify.service", "/usr/share/dbus-1/system.d/org.nook.Notify.conf",
                        "/usr/local/bin/nook-mqtt", "/etc/systemd/system/nook-mqtt.service", "/etc/nook/mqtt.toml",
                        "/usr/local/bin/nook-lcdproc", "/etc/systemd/system/nook-lcdproc.service",
                        "/usr/local/bin/nook-http", "/etc/systemd/system/nook-http.service", "/etc/nook/http.toml",
                        "/usr/share/doc/nook/nginx/nook-http.conf"]
            + (try FileManager.default.contentsOfDirectory(atPath: repository + "/docs")).filter { $0.hasSuffix(".md") }.map { "/usr/share/doc/nook/docs/" + $0 }
        for path in expected { #expect(FileManager.default.fileExists(atPath: stage + path), "\(path)") }
        #expect(FileManager.default.isExecutableFile(atPath: stage + "/usr/local/bin/nookd"))
        let manPages = try installedManPages(stage)
        #expect(manPages.count == 8, "\(manPages)")
        let config = try DaemonConfigProbe.load(stage + "/etc/nook/nook.toml")
        #expect(config, "the installed config is valid")

        // A user's own config survives a reinstall and the uninstall.
        try "# mine\n[home]\ncontent = \"blank\"\n".write(toFile: stage + "/etc/nook/nook.toml", atomically: true, encoding: .utf8)
        #expect(try run(repository + "/Hardware/install", ["--destdir", stage, "--binaries", binaries]).status == 0)
        #expect(try String(contentsOfFile: stage + "/etc/nook/nook.toml", encoding: .utf8).hasPrefix("# mine"))

        let uninstall = try run(repository + "/Hardware/install", ["--uninstall", "--destdir", stage])
        #expect(uninstall.status == 0, "\(uninstall.output)")
        for path in expected where !path.hasPrefix("/etc/nook/") { #expect(!FileManager.default.fileExists(atPath: stage + path), "\(path) removed") }
        #expect(!FileManager.default.fileExists(atPath: stage + "/usr/share/doc/nook"), "the documentation's directories are removed too")
        for page in manPages { #expect(!FileManager.default.fileExists(atPath: stage + page), "\(page) removed") }
        #expect(FileManager.default.fileExists(atPath: stage + "/etc/nook/nook.toml"), "config kept without --purge")
        #expect(try run(repository + "/Hardware/install", ["--uninstall", "--destdir", stage]).status == 1, "nothing left to uninstall")
    }
}

/// Every page of docs/man installed where man(1) finds it, gzipped as Debian's packages are
/// (`gzip -9n`), each the page's own text and rendered by `man -l` without a warning; the
/// installed paths, for the uninstall's check.
func installedManPages(_ stage: String) throws -> [String] {
    let sources = try FileManager.default.contentsOfDirectory(atPath: repository + "/docs/man")
        .filter { $0.range(of: #"\.[1-8]$"#, options: .regularExpression) != nil }.sorted()
    #expect(sources.contains("nookctl.1") && sources.contains("nook.toml.5") && sources.contains("nookd.8"))
    var installed: [String] = []
    for name in sources {
        let path = "/usr/share/man/man\(name.split(separator: ".").last!)/\(name).gz"
        installed.append(path)
        guard FileManager.default.fileExists(atPath: stage + path) else {
            Issue.record("\(name) is installed as \(path)")
            continue
        }
        let unzipped = try run("/usr/bin/gzip", ["-dc", stage + path])
        let source = try String(contentsOfFile: repository + "/docs/man/" + name, encoding: .utf8)
        #expect(unzipped.status == 0 && unzipped.output == source, "\(path) is docs/man/\(name) gzipped")
        let header = try Data(contentsOf: URL(fileURLWithPath: stage + path)).prefix(10)
        #expect(header.count == 10 && header[4..<8].allSatisfy { $0 == 0 }, "\(path): gzip -n leaves the time stamp out")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            // MANWIDTH: no terminal here; warnings go to standard error, which run() merges in.
            let shown = try run("/usr/bin/env", ["MANWIDTH=80", "MAN_KEEP_FORMATTING=0", "/usr/bin/man", "--warnings", "-l", "-P", "cat", stage + path])
            let complaints = shown.output.split(separator: "\n").filter { $0.hasPrefix("troff:") || $0.hasPrefix("man:") || $0.hasPrefix("mandoc:") }
            #expect(shown.status == 0 && complaints.isEmpty, "man -l \(path): \(complaints)")
        }
    }
    return installed
}

/// Checks a config file with nookd's own parser, through the TOML reader (the test target does
/// not link the daemon).
enum DaemonConfigProbe {
    static func load(_ path: String) throws -> Bool {
        let result = try run(BuiltProducts.program("nookd"), ["--config", path, "--check"])
        return result.status == 0 && result.output.contains("configuration OK")
    }
}

@Suite("E6 nook-mqtt's unit", .ownThreads)
struct MQTTUnitFileTests {
    @Test func e6_theUnitIsHardenedRunsAsItsOwnUserAndHasNoDevices() throws {
        let path = repository + "/Hardware/systemd/nook-mqtt.service"
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", path])
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(result.output.suffix(500))")
        let score = try #require(line.split(separator: " ").compactMap { Double($0) }.last)
        print("nook-mqtt.service exposure: \(score)")
        #expect(score <= 2.5, "\(line)")
        let unit = try String(contentsOfFile: path, encoding: .utf8)
        for setting in ["User=nook-mqtt", "SupplementaryGroups=nook", "PrivateDevices=yes", "DevicePolicy=closed", "NoNewPrivileges=yes",
                        "ProtectSystem=strict", "Restart=on-failure"] {
            #expect(unit.contains(setting), "\(setting)")
        }
        #expect(!unit.contains("DeviceAllow="))
        let users = try String(contentsOfFile: repository + "/Hardware/sysusers/nook.conf", encoding: .utf8)
        #expect(users.contains("u nook-mqtt ") && users.contains("m nook-mqtt nook"))
    }
}

@Suite("H4 nook-http's unit", .ownThreads)
struct HTTPUnitFileTests {
    @Test func h4_theUnitIsHardenedRunsAsItsOwnUserAndReachesOnlyLoopback() throws {
        let path = repository + "/Hardware/systemd/nook-http.service"
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", path])
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(result.output.suffix(500))")
        let score = try #require(line.split(separator: " ").compactMap { Double($0) }.last)
        print("nook-http.service exposure: \(score)")
        #expect(score <= 2.5, "\(line)")
        let unit = try String(contentsOfFile: path, encoding: .utf8)
        for setting in ["User=nook-http", "SupplementaryGroups=nook", "PrivateDevices=yes", "DevicePolicy=closed", "NoNewPrivileges=yes",
                        "ProtectSystem=strict", "Restart=on-failure", "IPAddressDeny=any", "IPAddressAllow=localhost", "Documentation=man:nook-http(8)"] {
            #expect(unit.contains(setting), "\(setting)")
        }
        #expect(!unit.contains("DeviceAllow="))
        let users = try String(contentsOfFile: repository + "/Hardware/sysusers/nook.conf", encoding: .utf8)
        #expect(users.contains("u nook-http ") && users.contains("m nook-http nook"))
    }
}

@Suite("E1 nook-notify's units", .ownThreads)
struct NotifyUnitTests {
    @Test func e1_theSystemUnitIsHardenedAndTheUserUnitIsActivatedByDBus() throws {
        let path = repository + "/Hardware/systemd/nook-notify.service"
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", path])
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(result.output.suffix(500))")
        let score = try #require(line.split(separator: " ").compactMap { Double($0) }.last)
        print("nook-notify.service exposure: \(score)")
        #expect(score <= 2.0, "\(line)")
        let system = try String(contentsOfFile: path, encoding: .utf8)
        for setting in ["Type=dbus", "BusName=org.freedesktop.Notifications", "--system", "User=nook", "RestrictAddressFamilies=AF_UNIX"] {
            #expect(system.contains(setting), "\(setting)")
        }
        let user = try String(contentsOfFile: repository + "/Hardware/systemd/user/nook-notify.service", encoding: .utf8)
        #expect(user.contains("BusName=org.freedesktop.Notifications") && !user.contains("User="))
        let activation = try String(contentsOfFile: repository + "/Hardware/dbus/org.nook.Notify.service", encoding: .utf8)
        #expect(activation.contains("Name=org.freedesktop.Notifications") && activation.contains("SystemdService=nook-notify.service"))
    }
}

@Suite("E8 nook-lcdproc's unit", .ownThreads)
struct LCDprocUnitTests {
    @Test func e8_theUnitIsHardenedListensOnLoopbackOnlyAndOpensNoDevice() throws {
        let path = repository + "/Hardware/systemd/nook-lcdproc.service"
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", path])
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(result.output.suffix(500))")
        let score = try #require(line.split(separator: " ").compactMap { Double($0) }.last)
        print("nook-lcdproc.service exposure: \(score)")
        #expect(score <= 2.0, "\(line)")
        let unit = try String(contentsOfFile: path, encoding: .utf8)
        // Its settings (the listen address among them, loopback unless set) are nook.toml's [lcdproc].
        for setting in ["DynamicUser=yes", "SupplementaryGroups=nook", "--config /etc/nook/nook.toml", "IPAddressAllow=localhost", "IPAddressDeny=any",
                        "PrivateDevices=yes", "DevicePolicy=closed", "RestrictAddressFamilies=AF_UNIX AF_INET", "Conflicts=LCDd.service"] {
            #expect(unit.contains(setting), "\(setting)")
        }
        let exec = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        #expect(!exec.contains("--allow-network") && !exec.contains("--bind"), "\(exec)")
    }
}
