import Foundation
import NookConfig
@testable import NookDaemon
import NookTestTraits
import Testing

/// N1: each of nookd's settings lives with the service that declares it: that service reads it,
/// into its own member of DaemonConfig, in the one reading order, and a service that reads a key
/// it does not declare is refused. Adding a setting touches its owner and nothing central.
@Suite("N1 each setting is read by its owner, into its owner's settings")
struct SettingOwnersTests {
    /// The member that holds `owner`'s settings, to tell two owners' apart.
    static func member<Owner: OwnsSettings>(of owner: Owner.Type) -> AnyKeyPath { owner.member }

    @Test func n1_theServicesThatDeclareKeysAreTheReadingOrderEachOnceWithAMemberOfItsOwn() {
        var declaring: [String] = []
        for service in DaemonParts.startOrder where (service as? any DeclaresSettings.Type) != nil { declaring.append(service.name) }
        var reading: [String] = []
        var members: Set<AnyKeyPath> = []
        for owner in DaemonConfig.readingOrder {
            reading.append(owner.name)
            members.insert(Self.member(of: owner))
        }
        #expect(Set(reading) == Set(declaring), "declare keys but read none: \(Set(declaring).subtracting(reading).sorted())")
        #expect(reading.count == Set(reading).count, "a service reads twice: \(reading)")
        #expect(members.count == reading.count, "two services share a member of DaemonConfig")
    }

    /// Every declared key (nook.toml(5)'s, as SettingDeclarationTests proves) changes its
    /// owner's settings when the file changes its value: the owner reads it.
    @Test func n1_everyDeclaredKeyChangesItsOwnersSettings() throws {
        let scratch = Scratch()
        let samples = ReloadKeyTests.samples(themeFiles: (scratch.file("a.toml", "[theme]\naccent = \"#112233\"\n"),
                                                          scratch.file("b.toml", "[theme]\naccent = \"#445566\"\n")))
        var walked = 0
        for owner in DaemonConfig.readingOrder {
            for key in owner.settings.map(\.key) {
                let sample = try #require(samples[key], "no sample values for \(key)")
                var values = sample.beside
                values[key] = sample.from
                let from = try ReloadKeyTests.load(values)
                values[key] = sample.to
                let to = try ReloadKeyTests.load(values)
                let reached = from.differs(from: to, for: owner)
                #expect(reached, "\(key) does not reach the \(owner.name) service's settings")
                walked += 1
            }
        }
        #expect(walked == DaemonConfig.keys.keys.count)
    }

    /// A service whose reading strays into the queues' key.
    enum StrayReader: OwnsSettings {
        static let name = "stray"
        static let settings = [Setting<Int>.integer("stray.count", default: 1, in: 1...2, reload: .restart).declaration]
        static var member: WritableKeyPath<DaemonConfig, Service.EventLog.Settings> { \.eventLog }

        static func read(_ reader: ConfigReader, over settings: Service.EventLog.Settings, in reading: SettingsReading) throws(ConfigError) -> Service.EventLog.Settings {
            _ = try Service.Queues.capacity.read(reader)
            return settings
        }
    }

    /// Whether or not the file sets the key: the reading itself is refused, so no test file can
    /// miss it.
    @Test func n1_aServiceThatReadsAnotherServicesKeyIsRefusedNamingBoth() throws {
        for text in ["", "[queue]\ncapacity = 5\n"] {
            let reader = ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml"))
            #expect(throws: ConfigError(source: "nook.toml", line: text.isEmpty ? nil : 2, key: "queue.capacity",
                                        message: "is read by the stray service, which does not declare it")) {
                _ = try DaemonConfig(reading: reader, directory: ".", order: DaemonConfig.readingOrder + [StrayReader.self])
            }
        }
    }

    /// docs/architecture.md's "Adding a setting" names the files a setting is written in: each
    /// exists, and every owner's file is among those step 1 points to (`*Service.swift`).
    @Test func n1_theRecipeForAddingASettingNamesFilesThatExist() throws {
        let root = BuiltProducts.repository
        let text = try String(contentsOfFile: root + "/docs/architecture.md", encoding: .utf8)
        let recipe = DocumentedLists.markdownSection(text, heading: "Adding a setting")
        let steps = recipe.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(steps.count == 3, "the recipe's steps: \(steps)")
        let paths = recipe.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { $0.contains("/") && !$0.contains("*") }
        #expect(paths.count >= 2, "\(paths)")
        for path in paths {
            #expect(FileManager.default.fileExists(atPath: root + "/" + path), "the recipe names \(path), which does not exist")
        }
        let services = try FileManager.default.contentsOfDirectory(atPath: root + "/Sources/NookDaemon").filter { $0.hasSuffix("Service.swift") }
        for owner in DaemonConfig.readingOrder {
            let type = String(reflecting: owner).split(separator: ".").last.map(String.init) ?? ""
            let file = services.first { name in
                let source = (try? String(contentsOfFile: root + "/Sources/NookDaemon/" + name, encoding: .utf8)) ?? ""
                return source.contains("extension Service.\(type): OwnsSettings")
            }
            #expect(file != nil, "\(type) reads its settings outside a *Service.swift file, where the recipe says")
        }
    }
}
