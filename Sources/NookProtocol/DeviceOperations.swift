import NookActivities

/// The operations on the whole device: what the glass shows when no card is on it (R4, E8),
/// quiet hours (Z1), the indicator lights and the display's power and brightness (M1) and the buttons simulated for tests and boards without buttons.
public struct DeviceOperations: Sendable {
    typealias Row = NookOperation.Row

    public let home = Row<HomeSetting>(
        .home, fields: ["content", "text", "color"], answer: HomeAnswer.self, command: .subcommand, scope: .device("set the home content"),
        make: { .home($0) },
        decode: { reader throws(ProtocolError) in
            switch try reader.requiredString("content") {
            case "clock": return .clock
            case "blank": return .blank
            case "text":
                let text = try reader.requiredString("text")
                guard !text.isEmpty else { throw ProtocolError(.invalid, field: "text", "must not be empty") }
                if let problem = HomeSetting.textLimit.problem(with: text) { throw ProtocolError(.invalid, field: "text", problem) }
                return .text(text)
            case "light":
                let text = try reader.requiredString("color")
                guard let color = NookIndicator.color(hex: text) else { throw ProtocolError(.invalid, field: "color", "must be #rrggbb, got '\(SaidText.shown(text))'") }
                return .light(color)
            case "light-off": return .lightOff
            case let other: throw ProtocolError(.invalid, field: "content", "must be clock, blank, text, light or light-off; got '\(SaidText.shown(other))'")
            }
        },
        encode: { setting in
            switch setting {
            case .clock: [("content", .string("clock"))]
            case .blank: [("content", .string("blank"))]
            case .text(let text): [("content", .string("text")), ("text", .string(text))]
            case .light(let color): [("content", .string("light")), ("color", .string(NookIndicator.hex(color)))]
            case .lightOff: [("content", .string("light-off"))]
            }
        })

    /// nook-lcdproc's screens as the home content (E8); nil gives the configured home back.
    public let glance = Row<NookGlance?>(
        .glance, fields: ["glance"], answer: GlanceAnswer.self, command: .bridgesOnly,
        make: { .glance($0) },
        decode: { reader throws(ProtocolError) in try reader.value("glance").map { value throws(ProtocolError) in try GlancePayload.decode(value) } },
        encode: { $0.map { [("glance", GlancePayload.encode($0))] } ?? [] })

    /// Quiet hours (Z1): `on`, `off`, `until` a time, or the status, which anyone may read, as `status`.
    public let quiet = Row<QuietSetting>(
        .quiet, fields: ["set", "until"], answer: QuietAnswer.self, command: .subcommand, scope: .device("change quiet hours"),
        scopeOf: { if case .status = $0 { .anyone } else { nil } },
        reads: { if case .status = $0 { true } else { false } },
        make: { .quiet($0) },
        decode: { reader throws(ProtocolError) in
            switch try reader.requiredString("set") {
            case "on": return .on
            case "off": return .off
            case "status": return .status
            case "until":
                let time = try reader.requiredString("until")
                guard !time.isEmpty, time.utf8.count <= 16 else { throw ProtocolError(.invalid, field: "until", "must be HH:MM or a duration such as 45m or 2h") }
                return .until(time)
            case let other: throw ProtocolError(.invalid, field: "set", "must be on, off, until or status; got '\(other)'")
            }
        },
        encode: { setting in
            switch setting {
            case .on: [("set", .string("on"))]
            case .off: [("set", .string("off"))]
            case .status: [("set", .string("status"))]
            case .until(let time): [("set", .string("until")), ("until", .string(time))]
            }
        })

    /// An indicator light (M1, AWTRIX's `indicator1..3`): its colour, blink and fade; black, or
    /// no colour on a light that is off, leaves it off.
    public let indicator = Row<NookIndicator>(
        .indicator, fields: ["number", "color", "blinkMs", "fadeMs"], answer: IndicatorAnswer.self, command: .subcommand,
        scope: .device("set the indicator lights"),
        make: { .indicator($0) },
        decode: { reader throws(ProtocolError) in try NookIndicator.decode(reader) },
        encode: { $0.encoded })

    /// The display switched off (for a while) or on, and its brightness set or given back to
    /// nook.toml and the room (M1's `power`, `sleep` and `settings`, M4's `PUT display`); with
    /// neither, its state, which anyone may read, as `status`.
    public let display = Row<DisplaySetting>(
        .display, fields: ["power", "forS", "brightness"], answer: DisplayAnswer.self, command: .subcommand,
        scope: .device("switch the display off or on, or set its brightness"),
        scopeOf: { $0.reads ? .anyone : nil },
        reads: { $0.reads },
        make: { .display($0) },
        decode: { reader throws(ProtocolError) in try DisplaySetting.decode(reader) },
        encode: { $0.encoded })

    /// The buttons simulated (`debug.press_inputs`): `holdMs`, how long the button is held, for
    /// a long press (U5's recall); nil is a short press.
    public let press = Row<(input: NookInputName, holdMs: Int?)>(
        .press, fields: ["input", "holdMs"], answer: PressAnswer.self, command: .bridgesOnly, scope: .debug,
        make: { .press($0.input, holdMs: $0.holdMs) },
        decode: { reader throws(ProtocolError) in
            let name = try reader.requiredString("input")
            guard let input = NookInputName(rawValue: name) else {
                throw ProtocolError(.invalid, field: "input", "must be one of \(NookInputName.allCases.map(\.rawValue).joined(separator: ", ")); got '\(name)'")
            }
            let hold = try reader.number("holdMs")
            if let hold, !(hold >= 0 && hold <= 60_000 && hold == hold.rounded()) {
                throw ProtocolError(.invalid, field: "holdMs", "must be whole milliseconds from 0 to 60000, got \(hold)")
            }
            return (input, hold.map { Int($0) })
        },
        encode: { [("input", .string($0.input.rawValue))] + ($0.holdMs.map { [("holdMs", .number(Double($0)))] } ?? []) })
}
