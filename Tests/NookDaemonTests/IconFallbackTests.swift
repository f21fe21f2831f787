import Foundation
import NookActivities
import NookDisplay
import NookRender
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing
@testable import NookDaemon

/// A bridge's icon fallback (M3): the built-in icon a bridge used to put in place of a sender's
/// name or id itself, now sent beside it so that nookd draws the name's file when the board has
/// one, the fallback only when it has none, and says so naming where it looked.
@Suite("M3 icon fallbacks")
struct IconFallbackTests {
    static func card(_ icon: String, fallback: String?) -> NookActivity {
        var card = NookActivity(title: "x", systemImage: icon)
        card.iconFallback = fallback
        return card
    }

    @Test func m3_aFileIsDrawnBeforeTheFallbackAndTheFallbackIsSaidNamingWhereNookdLooked() throws {
        let scratch = Scratch()
        let icons = try IconLookupTests.directory(scratch)
        let policy = IconPolicy(directories: [icons])
        for (icon, drawn) in [("1234", icons + "/1234.gif"), ("a1234", icons + "/1234.gif"), ("weather", icons + "/weather.png"), ("clock", "clock")] {
            let asked = Self.card(icon, fallback: "bell")
            let checked = try policy.checked(asked)
            #expect(checked.systemImage == drawn && checked.iconFallback == nil, "\(icon)")
            #expect(policy.fallbackNote(asked: asked, drawn: checked) == nil, "\(icon): drawn as asked, nothing to say")
        }
        let heat = Self.card("heat", fallback: "bell")
        let bell = try policy.checked(heat)
        #expect(bell.systemImage == "bell" && bell.iconFallback == nil)
        #expect(policy.fallbackNote(asked: heat, drawn: bell)
                == "icon 'heat' is not a built-in icon (did you mean 'heart'?) and no heat.png, heat.gif in \(icons) (daemon.icon_directories): the card shows 'bell'")
        // Empty: no icon, as an AWTRIX app with a number or a LaMetric card without icon_type.
        let number = Self.card("7956", fallback: "")
        let none = try policy.checked(number)
        #expect(none.systemImage == nil)
        #expect(IconPolicy(directories: []).fallbackNote(asked: number, drawn: try IconPolicy(directories: []).checked(number), shownOn: "app")
                == "icon '7956' is not a built-in icon and no icon directory is configured (daemon.icon_directories): the app shows no icon")
        // Without a fallback, as before: the name stays and is said unknown.
        #expect(try policy.checked(Self.card("heat", fallback: nil)).systemImage == "heat")
    }

    @Test func m3_aFallbackIsABuiltInNameOrEmptyAndTravelsOnTheWire() throws {
        #expect(throws: ProtocolError(.invalid, field: "activity.iconFallback",
                                      "must be a built-in icon name ('nookctl icons' lists them) or empty for none, got 'bel' (did you mean 'bell'?)")) {
            try ActivityPayload.decode(.object([("title", .string("t")), ("icon", .string("1234")), ("iconFallback", .string("bel"))]))
        }
        let card = Self.card("1234", fallback: "bell")
        #expect(try ActivityPayload.decode(ActivityPayload.encode(card)) == card)
        var app = NookApp(name: "w", content: .text("x"), icon: "2355")
        app.iconFallback = ""
        #expect(try AppPayload.decode(AppPayload.encode(app)) == app)
        // An update may carry one beside its icon, as nook-notify's replacement and nook-http's do.
        let changes = try ActivityChanges(json: .object([("icon", .string("heat")), ("iconFallback", .string("bell"))]))
        let asked = Daemon.askedIcon(changes)
        #expect(asked?.systemImage == "heat" && asked?.iconFallback == "bell")
    }
}

/// nook-notify's unmapped icon names through nookd (M3): the file the board has is drawn, the
/// bell only when it has none, and the bridge's log says so.
@Suite("M3 nook-notify's icon fallback", .serialized, .ownThreads)
struct NotifyIconFallbackTests {
    @Test(.enabled(if: NotifyTools.available, NotifyTools.skipReason))
    func m3_notifyDrawsAnUnmappedNameFromItsIconFileBeforeTheBell() throws {
        let scratch = Scratch()
        let icons = try IconLookupTests.directory(scratch)
        try PNG.write(Frame(width: 8, height: 8, fill: RGB(hex: 0xFF8800).pixel), to: icons + "/heat.png")
        let config = scratch.file("nook.toml", "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        let setup = try NotifyBridgeTests.Setup(daemonArguments: ["--config", config])
        _ = try setup.send(["-t", "0", "-i", "heat", "Hot"])
        _ = try setup.send(["-t", "0", "-i", "1234", "Door"])
        _ = try setup.send(["-t", "0", "-i", "frost", "Cold"])
        try eventually("the cards") { try setup.allActivities().count == 3 }
        let cards = try setup.allActivities()
        func icon(_ title: String) -> String? { cards.first { $0.title == title }?.systemImage }
        #expect(icon("Hot") == icons + "/heat.png" && icon("Door") == icons + "/1234.gif" && icon("Cold") == "bell", "\(cards)")
        try eventually("the fallback said in the bridge's log") {
            setup.bridge.log.contains("icon 'frost' is not a built-in icon and no frost.png, frost.gif in \(icons) (daemon.icon_directories): the card shows 'bell'")
        }
        #expect(!setup.bridge.log.contains("'heat'") && !setup.bridge.log.contains("'1234'"), "\(setup.bridge.log)")
    }
}
