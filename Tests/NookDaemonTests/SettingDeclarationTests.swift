import Foundation
import NookConfig
@testable import NookDaemon
import Testing

/// N1: each setting declared once (key, type, default, range, reload) is what nook.toml(5)
/// says of it, and the service that declares it owns it: the page cannot drift from the code.
@Suite("N1 each declared setting is what nook.toml(5) says of it")
struct SettingDeclarationTests {
    /// Every service's declared settings, by the service's name.
    static var declared: [(service: String, setting: SettingDeclaration)] {
        DaemonParts.startOrder.flatMap { service -> [(service: String, setting: SettingDeclaration)] in
            guard let declaring = service as? any DeclaresSettings.Type else { return [] }
            return declaring.settings.map { (service.name, $0) }
        }
    }

    /// One key's entry of the page: its text with the roff macros taken off, and what the page
    /// says a reload does with it (on the key, or once for its whole table).
    struct Entry {
        var text = ""
        var reload: SettingReload?
    }

    /// The page's entries by key as the page writes it (`gpio.NAME.role`, `theme.palette.NAME`).
    /// Entries written one under the other with no text between them share the text after
    /// the last of them (`theme.title_scale` and `theme.subtitle_scale`: "Text sizes, …").
    static func entries() throws -> [String: Entry] {
        let file = #filePath
        let page = try String(contentsOfFile: String(file[..<file.range(of: "/Tests/")!.lowerBound]) + "/docs/man/nook.toml.5", encoding: .utf8)
        var entries: [String: Entry] = [:]
        var tableReload: SettingReload?, current: String?
        var grouped: [String] = []
        func reload(of line: String) -> SettingReload { line.hasPrefix("Reload: applied") ? .applied : .restart }
        func closeGroup() {
            if let last = grouped.last, let entry = entries[last] {
                for key in grouped.dropLast() {
                    guard var shared = entries[key], shared.text.isEmpty else { continue }
                    shared.text = entry.text
                    shared.reload = shared.reload ?? entry.reload
                    entries[key] = shared
                }
            }
            grouped = []
        }
        for line in page.split(separator: "\n").map(String.init) {
            if line.hasPrefix(".Ss ") { closeGroup(); (tableReload, current) = (nil, nil); continue }
            if line == ".El" { closeGroup(); current = nil; continue }
            if line.hasPrefix(".It Cm ") {
                if let current, entries[current]?.text.isEmpty == false { closeGroup() }
                current = line.dropFirst(7).split(separator: " ").first.map(String.init)
                if let current { entries[current] = Entry(reload: tableReload); grouped.append(current) }
                continue
            }
            if line.hasPrefix("Reload: "), line.contains("for every key of the table"), current == nil {
                tableReload = reload(of: line)
                continue
            }
            guard let key = current else { continue }
            if line.hasPrefix("Reload: ") { entries[key]?.reload = reload(of: line) }
            entries[key]?.text += " " + Self.plain(line)
        }
        closeGroup()
        return entries
    }

    /// The page's name of a declared key: `gpio.*.role` is `gpio.NAME.role`, each
    /// `theme.palette.red` is `theme.palette.NAME`.
    static func pageKey(of key: String, in entries: [String: Entry]) -> String {
        let named = key.replacingOccurrences(of: "*", with: "NAME")
        if entries[named] != nil { return named }
        return named.split(separator: ".").dropLast().joined(separator: ".") + ".NAME"
    }

    /// A line as a reader sees it: `.Qq word .` is `"word" .`, other macros' names are dropped.
    static func plain(_ line: String) -> String {
        guard line.hasPrefix(".") else { return line }
        var words = line.split(separator: " ").dropFirst().map(String.init)
        if line.hasPrefix(".Qq "), !words.isEmpty { words[0] = "\"\(words[0])\"" }
        return words.joined(separator: " ")
    }

    @Test func n1_nookToml5SaysEachDeclaredSettingsRangeDefaultAndReload() throws {
        let entries = try Self.entries()
        #expect(Self.declared.count >= 30, "the declarations were reached: \(Self.declared.count)")
        for (_, setting) in Self.declared {
            guard let entry = entries[Self.pageKey(of: setting.key, in: entries)] else { Issue.record("nook.toml(5) has no entry for \(setting.key)"); continue }
            #expect(entry.reload == setting.reload, "\(setting.key): nook.toml(5) says \(String(describing: entry.reload)), the declaration \(setting.reload)")
            if let shown = setting.shownDefault {
                #expect(entry.text.lowercased().contains("default \(shown)".lowercased()), "\(setting.key): nook.toml(5) does not say default \(shown): \(entry.text)")
            }
            if let range = setting.shownRange {
                #expect(entry.text.contains(range), "\(setting.key): nook.toml(5) does not say \(range): \(entry.text)")
            }
            if case .choice(let choices) = setting.kind {
                for choice in choices {
                    #expect(entry.text.contains(choice), "\(setting.key): nook.toml(5) does not name \(choice): \(entry.text)")
                }
            }
        }
    }

    @Test func n1_eachDeclaredSettingIsReadOnceAndOwnedByTheServiceThatDeclaresIt() {
        var seen: Set<String> = []
        for (service, setting) in Self.declared {
            #expect(seen.insert(setting.key).inserted, "\(setting.key) is declared twice")
            #expect(DaemonConfig.keys.contains(setting.key), "\(setting.key) is not in the reader's table")
            let owner = DaemonParts.startOrder.first { $0.name == service }
            #expect(owner.map { ConfigKeyTable($0.keys).contains(setting.key) } == true, "\(service) declares \(setting.key) but does not own it")
        }
    }

    /// Every key of the page is declared at a service, and every key a service owns is one it
    /// declares: the reader's table is the declarations and nothing else.
    @Test func n1_everyKeyOfNookToml5IsDeclaredOnceAtTheServiceThatOwnsIt() throws {
        let entries = try Self.entries()
        let pageKeys = Set(Self.declared.map { Self.pageKey(of: $0.setting.key, in: entries) })
        #expect(Set(entries.keys).subtracting(pageKeys).sorted() == [], "keys of nook.toml(5) that no service declares")
        #expect(entries.count >= 120, "the page's entries were reached: \(entries.count)")
        for service in DaemonParts.startOrder {
            let declared = (service as? any DeclaresSettings.Type)?.settings.map(\.key) ?? []
            #expect(service.keys == declared, "\(service.name) owns keys it does not declare: \(Set(service.keys).subtracting(declared).sorted())")
        }
        #expect(DaemonConfig.keys.keys == Self.declared.map(\.setting.key), "the reader's table is the declarations")
        // The tables an unknown table's error lists are those of the keys.
        let tables = Set(DaemonConfig.keys.keys.map { $0.split(separator: ".").dropLast().joined(separator: ".") }.filter { !$0.contains("*") })
        #expect(Set(DaemonConfig.tables) == tables)
    }

    /// The declaration's range is the reader's: a value outside it is refused naming file,
    /// line and key, as before.
    @Test func n1_aValueOutsideADeclaredRangeIsRefusedWithFileLineAndKey() throws {
        let reader = ConfigReader(try ConfigDocument(parsing: "[queue]\ncapacity = 0\n", source: "nook.toml"))
        #expect {
            _ = try DaemonConfig(reading: reader)
        } throws: { error in
            (error as? ConfigError)?.description == "nook.toml:2: queue.capacity: must be from 1 to 100000, got 0"
        }
    }
}
