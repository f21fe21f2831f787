import Foundation
import NookTestTraits
import Testing

/// Hardware/debian against the rest of Hardware/: what Hardware/install installs, the packages
/// install too, from the same files. The packages themselves are built and judged (lintian,
/// piuparts) by `Hardware/dev/package amd64 check`, which needs root and a trixie root.
@Suite("P7 P8 the Debian packages", .cpuBound)
struct DebianPackagingTests {
    static let debian = repository + "/Hardware/debian"

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: repository + "/" + path, encoding: .utf8)
    }

    /// Each package's lines of one kind of debhelper file (`install`, `manpages`), by package.
    static func lists(_ kind: String) throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: debian) where file.hasSuffix("." + kind) {
            let lines = try text("Hardware/debian/" + file).split(separator: "\n").map(String.init)
                .filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            found[String(file.dropLast(kind.count + 1))] = lines
        }
        return found
    }

    static func packages() throws -> [String] {
        try text("Hardware/debian/control").split(separator: "\n")
            .filter { $0.hasPrefix("Package: ") }.map { String($0.dropFirst("Package: ".count)) }
    }

    @Test func p7_thePackagesAreNookAndOnePerBridge() throws {
        #expect(try Self.packages() == ["nook", "nook-http", "nook-notify", "nook-mqtt", "nook-lcdproc"])
    }

    @Test func p7_everyManPageIsInstalledByExactlyOnePackage() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: repository + "/docs/man")
            .filter { $0.range(of: #"\.[1-8]$"#, options: .regularExpression) != nil }
        #expect(pages.count >= 8)
        let listed = try Self.lists("manpages").values.flatMap { $0 }
        for page in pages {
            #expect(listed.filter { $0 == "docs/man/" + page }.count == 1, "docs/man/\(page) in one debian/*.manpages")
        }
        for line in listed {
            #expect(FileManager.default.fileExists(atPath: repository + "/" + line), "\(line) exists")
        }
    }

    @Test func p7_everyUnitIsInstalledByExactlyOnePackageFromHardwareSystemd() throws {
        let units = try FileManager.default.contentsOfDirectory(atPath: repository + "/Hardware/systemd")
            .filter { $0.hasSuffix(".service") }
        #expect(units.count == 5)
        let installed = try Self.lists("install").values.flatMap { $0 }
        // debian/rules renders each unit with /usr/bin in one loop: `for unit in NAME...; do`.
        let loop = try #require(try Self.text("Hardware/debian/rules").split(separator: "\n").first { $0.contains("for unit in ") })
        let rendered = String(loop).components(separatedBy: "for unit in ")[1].prefix { $0 != ";" }.split(separator: " ").map { String($0) + ".service" }
        for unit in units {
            #expect(installed.filter { $0 == "build-deb/units/\(unit) usr/lib/systemd/system" }.count == 1, "\(unit) installed once")
            #expect(rendered.contains(unit), "debian/rules renders Hardware/systemd/\(unit)")
        }
        let userUnits = try FileManager.default.contentsOfDirectory(atPath: repository + "/Hardware/systemd/user")
        for unit in userUnits {
            #expect(installed.filter { $0 == "build-deb/user/\(unit) usr/lib/systemd/user" }.count == 1, "user unit \(unit) installed once")
        }
    }

    /// The package is `nook`: `systemctl reload nook` must reach nookd's unit (its alias, made
    /// when the package enables it), and a reload must be nookd's SIGHUP, which rereads nook.toml.
    @Test func p9_systemctlReloadNookReachesNookdsUnitAndSendsItSIGHUP() throws {
        let unit = try Self.text("Hardware/systemd/nookd.service").split(separator: "\n").map(String.init)
        let install = unit.drop { $0 != "[Install]" }.prefix { !$0.hasPrefix("[") || $0 == "[Install]" }
        #expect(install.contains("Alias=nook.service"), "nookd.service's [Install] has Alias=nook.service")
        #expect(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"))
    }

    /// udev applies rules only to devices it hears of after reading them: on a running system the
    /// display that was there before the package stays root's unless the install replays its
    /// events. The postinst replays every subsystem 70-nook.rules names, then restarts nookd.
    @Test func p9_theInstallAppliesTheUdevRulesToTheDevicesAlreadyThere() throws {
        let rules = try Self.text("udev/70-nook.rules")
        let named = Set(rules.matches(of: /SUBSYSTEM=="([^"]+)"/).map { String($0.output.1) })
        let postinst = try Self.text("Hardware/debian/nook.postinst")
        let replayed = Set(postinst.matches(of: /--subsystem-match=([^ \\]+)/).map { String($0.output.1) })
        #expect(named.count >= 4, "the rules name their subsystems: \(named)")
        #expect(replayed == named, "the postinst replays the subsystems the rules name")
        let trigger = try #require(postinst.range(of: "udevadm trigger"))
        let restart = try #require(postinst.range(of: "try-restart nookd.service"))
        #expect(trigger.upperBound < restart.lowerBound, "nookd restarts after the devices are nook's")
        #expect(postinst.contains("#DEBHELPER#"))
    }

    @Test func p7_everyProgramAndConfigOfHardwareInstallIsInAPackage() throws {
        let install = try Self.text("Hardware/install")
        let loop = try #require(install.split(separator: "\n").first { $0.hasPrefix("for tool in ") })
        let tools = loop.dropFirst("for tool in ".count).prefix { $0 != ";" }.split(separator: " ").map(String.init)
        #expect(tools.count == 6)
        let installed = try Self.lists("install")
        let all = installed.values.flatMap { $0 }
        for tool in tools {
            #expect(all.filter { $0 == "prebuilt/\(tool) usr/bin" }.count == 1, "\(tool) in /usr/bin of one package")
        }
        let configs = try FileManager.default.contentsOfDirectory(atPath: repository + "/Hardware").filter { $0.hasSuffix(".toml") }
        #expect(Set(configs) == ["nook.toml", "http.toml", "mqtt.toml"])
        for config in configs {
            #expect(all.filter { $0 == "Hardware/\(config) etc/nook" }.count == 1, "\(config) a conffile of one package")
        }
        #expect(installed["nook"]?.contains("Hardware/nook.toml etc/nook") == true)
    }

    @Test func p7_theSysusersAndUdevFilesAreHardwaresOwnNotCopies() throws {
        for (link, target) in [("nook.sysusers", "Hardware/sysusers/nook.conf"), ("nook.udev", "udev/70-nook.rules")] {
            let path = Self.debian + "/" + link
            let destination = try FileManager.default.destinationOfSymbolicLink(atPath: path)
            let resolved = ((Self.debian as NSString).appendingPathComponent(destination) as NSString).standardizingPath
            #expect(resolved == repository + "/" + target, "debian/\(link) points at \(target)")
        }
        #expect(try Self.text("Hardware/debian/rules").contains("dh_installudev --priority=70"), "installed as 70-nook.rules")
        #expect(try Self.text("Hardware/debian/control").contains("dh-sequence-installsysusers"))
    }

    @Test func p7_libraryDependenciesComeFromShlibsNeverAHandList() throws {
        let control = try Self.text("Hardware/debian/control")
        let stanzas = control.components(separatedBy: "\n\n").filter { $0.hasPrefix("Package: ") }
        #expect(stanzas.count == 5)
        for stanza in stanzas {
            let depends = try #require(stanza.split(separator: "\n").first { $0.hasPrefix("Depends: ") })
            #expect(depends.contains("${shlibs:Depends}"), "\(depends)")
            let named = depends.dropFirst("Depends: ".count).split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("${") }
            #expect(named.allSatisfy { !$0.hasPrefix("lib") }, "no library is named by hand: \(named)")
            #expect(stanza.hasPrefix("Package: nook\n") || named.contains("nook (= ${binary:Version})"), "a bridge needs its nook")
        }
    }

    @Test func p8_everyLintianOverrideCarriesItsReason() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.debian).filter { $0.hasSuffix("lintian-overrides") }
        for file in files {
            let lines = try Self.text("Hardware/debian/" + file).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where !line.hasPrefix("#") && !line.isEmpty {
                #expect(index > 0 && lines[index - 1].hasPrefix("#"), "\(file):\(index + 1) '\(line)' has a comment saying why")
            }
        }
    }

    @Test func p7_theLicenceIsApache2AsTheCopyrightFileSays() throws {
        let licence = try Self.text("LICENSE")
        #expect(licence.contains("Apache License") && licence.contains("Version 2.0, January 2004"))
        #expect(try Self.text("Hardware/debian/copyright").contains("License: Apache-2.0"))
        #expect(try Self.text("README.md").contains("[LICENSE](LICENSE)"))
    }
}
