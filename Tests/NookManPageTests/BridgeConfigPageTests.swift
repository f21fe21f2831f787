import Foundation
import NookConfig
import NookHTTP
import NookLCDproc
import NookMQTT
import Testing

/// Each bridge's config keys are one list in its code, declared where they are read (its
/// `settings`), and its page names exactly those keys: a key added to either side alone fails.
@Suite("E4 E8 H4 each bridge's page lists the keys its code declares")
struct BridgeConfigPageTests {
    /// The keys of the `.It Cm` items of the page's CONFIGURATION section: several to an item as
    /// `a , b`; `lcdproc.keys. Ns Ar input` is the declared `lcdproc.keys.*`.
    static func configurationItems(_ page: String) throws -> [String] {
        let lines = try ManPageTests.source(page).split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: ".Sh CONFIGURATION") else { return [] }
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix(".Sh ") }
        return section.filter { $0.hasPrefix(".It Cm ") }.flatMap { line -> [String] in
            let words = line.dropFirst(".It Cm ".count).split(separator: " ").map(String.init)
            var keys: [String] = []
            for word in words {
                if word == "No" || word == "Ar" { break }
                if word == "Ns" { keys[keys.count - 1] += "*"; break }
                if word != "," { keys.append(word) }
            }
            return keys
        }
    }

    /// nook-http(8) names its keys in its FILES entry of http.toml: after `.Li [http]` and
    /// `.Li [publish]`, each key a `.Li name` line of that table.
    static func httpFileKeys() throws -> [String] {
        let lines = try ManPageTests.source("nook-http.8").split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: ".It Pa /etc/nook/http.toml") else { return [] }
        var table = "http", keys: [String] = []
        for line in lines[(start + 1)...].prefix(while: { !$0.hasPrefix(".It ") }) where line.hasPrefix(".Li ") {
            guard let word = line.dropFirst(".Li ".count).split(separator: " ").first.map(String.init) else { continue }
            if word.hasPrefix("["), word.hasSuffix("]") {
                table = String(word.dropFirst().dropLast())
            } else if word.allSatisfy({ $0.isLowercase || $0 == "_" }) {
                keys.append(table + "." + word)
            }
        }
        return keys
    }

    static func expectSame(page: String, _ pageKeys: [String], declared: [SettingDeclaration]) {
        let declaredKeys = declared.map(\.key)
        #expect(pageKeys.count >= 10, "\(page)'s keys were reached: \(pageKeys)")
        #expect(Set(pageKeys).subtracting(declaredKeys).sorted() == [], "\(page) describes keys the program does not declare")
        #expect(Set(declaredKeys).subtracting(pageKeys).sorted() == [], "the program declares keys \(page) does not describe")
        #expect(Set(declaredKeys).count == declaredKeys.count, "a key is declared twice")
    }

    @Test func e4_nookMQTT8DescribesExactlyTheKeysNookMQTTDeclares() throws {
        Self.expectSame(page: "nook-mqtt(8)", try Self.configurationItems("nook-mqtt.8"), declared: MQTTConfig.settings)
    }

    @Test func e8_nookLCDproc8DescribesExactlyTheKeysNookLCDprocDeclares() throws {
        Self.expectSame(page: "nook-lcdproc(8)", try Self.configurationItems("nook-lcdproc.8"), declared: LCDConfig.settings)
    }

    @Test func h4_nookHTTP8NamesExactlyTheKeysNookHTTPDeclares() throws {
        Self.expectSame(page: "nook-http(8)", try Self.httpFileKeys(), declared: HTTPConfig.settings)
    }
}
