import NookActivities
import NookProtocol
import Testing

/// Every answer nookd sends is a type both sides share: what nookd encodes, a client decodes
/// to the same value, through the wire's JSON text.
@Suite("C1 typed answers round-trip through the wire")
struct AnswerTests {
    static let card: NookActivity = {
        var activity = NookActivity(coalescingKey: "build", priority: .high, title: "Build \"finished\"", subtitle: "Debug · 12.4s",
                                    systemImage: "hammer", tint: .named(.green))
        activity.progress = 0.5
        return activity
    }()

    static let blocker = NookActivity(title: "Door open", presentation: .blocker(timeout: .seconds(30)))

    /// Through `ResponseLine`'s encoded text and back, as nookctl reads it.
    func throughTheWire<Answer: NookAnswer>(_ answer: Answer) throws -> Answer {
        let line = ResponseLine.success(id: .number(7), result: answer.json).encoded()
        guard case .success(.number(7)?, let result) = try ResponseLine.decode(Array(line.utf8)) else {
            Issue.record("not a success line: \(line)")
            return answer
        }
        return try Answer(json: result)
    }

    @Test func r3_theWarningsOfEnqueueAndUpdateAreAdditive() throws {
        let id = NookActivityID()
        let warned = EnqueueAnswer(id: id, module: "door", warnings: ["unknown icon 'hamer'"])
        #expect(try throughTheWire(warned) == warned)
        let update = UpdateAnswer(updated: [.init(id: id, fields: ["icon"], onScreen: true)], warnings: ["unknown icon 'x'"])
        #expect(try throughTheWire(update) == update)
        // Without warnings the answer is what it always was: an older client sees no change.
        #expect(EnqueueAnswer(id: id, module: "door").json.serialized == "{\"id\":\"\(id)\",\"module\":\"door\"}")
        #expect(UpdateAnswer(updated: []).json.serialized == "{\"updated\":[]}")
        // A warnings member a client cannot read is no reason to report a done request as failed.
        let odd = JSONValue.object([("id", .string(id.description)), ("module", .string("m")), ("warnings", .number(3))])
        #expect(try EnqueueAnswer(json: odd).warnings.isEmpty)
    }

    @Test func c1_everyAnswerReadsBackAsItWasSent() throws {
        let id = NookActivityID()
        #expect(try throughTheWire(EnqueueAnswer(id: id, module: "door")) == EnqueueAnswer(id: id, module: "door"))
        #expect(try throughTheWire(CancelAnswer(cancelled: id)) == CancelAnswer(cancelled: id))
        #expect(try throughTheWire(CancelAllAnswer(cancelled: 3)) == CancelAllAnswer(cancelled: 3))
        #expect(try throughTheWire(DismissAnswer(dismissed: id)) == DismissAnswer(dismissed: id))
        #expect(try throughTheWire(InvokeAnswer(invoked: id)) == InvokeAnswer(invoked: id))
        #expect(try throughTheWire(ModulesAnswer(modules: ["default", "door"])) == ModulesAnswer(modules: ["default", "door"]))
        #expect(try throughTheWire(WatchAnswer()) == WatchAnswer())
        #expect(try throughTheWire(HomeAnswer(home: "text \"Quiet\"")) == HomeAnswer(home: "text \"Quiet\""))
        #expect(try throughTheWire(GlanceAnswer(home: "glance 40x4")) == GlanceAnswer(home: "glance 40x4"))
        #expect(try throughTheWire(FocusAnswer(from: nil, to: "door", preparedInTime: true)) == FocusAnswer(from: nil, to: "door", preparedInTime: true))
        #expect(try throughTheWire(FocusAnswer(from: "a", to: "b", preparedInTime: false)) == FocusAnswer(from: "a", to: "b", preparedInTime: false))
        let snapshot = SnapshotAnswer(width: 1280, height: 400, png: [0x89, 0x50, 0x4E, 0x47, 0, 255])
        #expect(try throughTheWire(snapshot) == snapshot)
        let list = ListAnswer(modules: [.init(name: "default", current: Self.card, pending: [Self.blocker]), .init(name: "door", current: nil, pending: [])])
        #expect(try throughTheWire(list) == list)
    }

    @Test func c1_statusReadsBackWithEveryOptionalPartPresentOrAbsent() throws {
        let full = StatusAnswer(
            foreground: "default",
            display: .init(backend: "drm", mode: "HDMI-A-1 1280x400@60.0Hz", rotation: 90, theme: "dark", refreshHz: 60,
                           slideFrameIntervalMs: 16.7, flips: .init(requested: 10, completed: 9, timedOut: 1)),
            home: "clock", engaged: true,
            inputs: [.init(input: "button", role: "open", active: true), .init(input: "proximity:vcnl4000", role: "hover", active: false, reading: 64.0625),
                     .init(input: "proximity:ltr559", role: "hover", active: false, problem: "no IIO device named 'ltr559'")],
            gpio: .init(library: "2.2.3", api: 2, lines: [
                .init(name: "button", role: "open", location: "gpiochip0 line 3", active: nil, changes: 4, lastEdgeToWakeMs: 0.8, problem: "gone"),
                .init(name: "lid", role: "hover", location: "gpiochip0 line 4", active: false, changes: 0),
            ]),
            modules: [.init(name: "default", current: Self.card, phase: .presented, pending: 2, capacity: 256, suspended: true,
                            displayAvailable: false, parked: "engaged", blockedBy: Self.blocker)],
            connections: 3, presence: .init(state: "dimmed", unseen: 2, lastReturnMs: 12.5),
            brightness: .init(state: "idle", level: 51, maximum: 255, output: "/sys/class/backlight/panel/brightness", lux: 12.5))
        #expect(try throughTheWire(full) == full)
        var frames = full
        frames.brightness = .init(state: "quiet", level: 5, maximum: 100, output: "frames")
        frames.presence = .init(state: "away", unseen: 0)
        #expect(try throughTheWire(frames) == frames, "no light sensor: no lux; no return yet")
        let bare = StatusAnswer(foreground: nil, display: .init(backend: "mock", mode: "mock 1280x400@60.0Hz", rotation: 0, theme: "light", refreshHz: 60),
                                home: "blank", engaged: false, inputs: [], gpio: nil,
                                modules: [.init(name: "default", pending: 0, capacity: 256, suspended: false, displayAvailable: true)],
                                connections: 1)
        #expect(try throughTheWire(bare) == bare)
    }

    /// nookctl converts status numbers to whole ones (a lux of 1e300, a level of 9e18 trapped
    /// it): the decoder refuses numbers out of range, naming the field.
    @Test func c3_numbersOutOfRangeInAStatusAnswerAreRefusedNamingTheField() throws {
        let base = StatusAnswer(foreground: nil, display: .init(backend: "mock", mode: "mock", rotation: 0, theme: "light", refreshHz: 60),
                                home: "blank", engaged: false, inputs: [], gpio: nil,
                                modules: [.init(name: "default", pending: 0, capacity: 256, suspended: false, displayAvailable: true)],
                                connections: 1, brightness: .init(state: "idle", level: 51, maximum: 255, output: "frames", lux: 12.5))
        let cases: [(String, (inout StatusAnswer) -> Void)] = [
            ("result.brightness.lux", { $0.brightness?.lux = 1e300 }),
            ("result.brightness.level", { $0.brightness = .init(state: "idle", level: -1, maximum: 255, output: "frames") }),
            ("result.brightness.maximum", { $0.brightness = .init(state: "idle", level: 1, maximum: 9_000_000_000_000_000_000, output: "frames") }),
            ("result.display.refreshHz", { $0.display.refreshHz = 1e308 }),
            ("result.connections", { $0.connections = -3 }),
        ]
        for (field, change) in cases {
            var answer = base
            change(&answer)
            #expect(throws: ProtocolError.self, "\(field)") { _ = try throughTheWire(answer) }
            do {
                _ = try throughTheWire(answer)
            } catch let error as ProtocolError {
                #expect(error.field == field, "\(error)")
            }
        }
    }

    /// A newer nookd may add fields: an older client still reads what it knows.
    @Test func c1_fieldsAClientDoesNotKnowAreIgnored() throws {
        let id = NookActivityID()
        let newer = try JSONValue.parse(Array(#"{"id":"\#(id)","module":"default","durable":true,"queuedBehind":4}"#.utf8))
        #expect(try EnqueueAnswer(json: newer) == EnqueueAnswer(id: id, module: "default"))
    }

    @Test func c1_aMissingOrMistypedFieldIsNamed() {
        #expect(throws: ProtocolError(.missingField, field: "result.module", "is required")) {
            try EnqueueAnswer(json: .object([("id", .string(NookActivityID().description))]))
        }
        #expect(throws: ProtocolError(.wrongType, field: "result.cancelled", "must be a number, got a string")) {
            try CancelAllAnswer(json: .object([("cancelled", .string("3"))]))
        }
        #expect(throws: ProtocolError(.wrongType, field: "result.cancelled", "must be a whole number, got 2.5")) {
            try CancelAllAnswer(json: .object([("cancelled", .number(2.5))]))
        }
    }

    @Test func q13_eventsReadBackWithHowTheActivityEnded() throws {
        let at = NookInstant(sinceOrigin: .milliseconds(1500))
        let hidden = EventMessage(NookActivityEvent(activity: Self.card, kind: .hidden(.timedOut), at: at, module: "door"))
        let decoded = try EventMessage(json: try JSONValue.parse(Array(hidden.json.serialized.utf8)))
        #expect(decoded == hidden)
        #expect(decoded.ending == .hidden(.timedOut) && decoded.at == 1.5 && decoded.module == "door")
        let invalid = NookActivityValidationError(field: "dwell", problem: "must be greater than 0")
        let rejected = EventMessage(NookActivityEvent(activity: Self.card, kind: .rejected(.invalid(invalid)), at: at, module: nil))
        #expect(rejected.ending == .rejected("invalid") && rejected.field == "dwell")
        #expect(try EventMessage(json: rejected.json) == rejected)
        let presented = EventMessage(NookActivityEvent(activity: Self.card, kind: .presented, at: at, module: nil))
        #expect(presented.ending == nil)
    }

    @Test func e3_anInvokedEventRoundTripsAndEndsNothing() throws {
        let at = NookInstant(sinceOrigin: .milliseconds(2500))
        var card = Self.card
        card.hasAction = true
        let invoked = EventMessage(NookActivityEvent(activity: card, kind: .invoked, at: at, module: "main"))
        let decoded = try EventMessage(json: try JSONValue.parse(Array(invoked.json.serialized.utf8)))
        #expect(decoded == invoked)
        #expect(decoded.event == .invoked && decoded.ending == nil && decoded.id == card.id)
    }
}

/// One declaration of the activity's fields: the wire codec and nookctl's options follow it.
@Suite("Q1, C3 one declaration of the activity's fields")
struct ActivityFieldTests {
    /// Every declared field is read by the codec: sent with a value, it changes the activity.
    @Test func q1_everyDeclaredFieldIsReadFromTheWire() throws {
        let values: [ActivityField: JSONValue] = [
            .id: .string("22222222-3333-4444-8555-666666666666"), .title: .string("t"), .subtitle: .string("s"),
            .icon: .string("bell"), .tint: .string("green"), .key: .string("k"), .priority: .string("high"),
            .dwell: .number(5), .blocker: .bool(true), .timeout: .number(9), .expiresAfter: .number(60),
            .progress: .number(0.5), .transition: .number(0.5), .endDelay: .number(0.2), .transient: .bool(true),
            .action: .bool(true), .sound: .string("doorbell"), .soundRepeat: .number(3),
        ]
        #expect(Set(values.keys) == Set(ActivityField.allCases), "a value for every field")
        let base = try ActivityPayload.decode(.object([("title", .string("t")), ("id", values[.id]!)]))
        for field in ActivityField.allCases where field != .title && field != .id {
            var members: [(String, JSONValue)] = [("title", .string("t")), ("id", values[.id]!), (field.wireName, values[field]!)]
            if field == .timeout { members.append(("blocker", .bool(true))) }
            let decoded = try ActivityPayload.decode(.object(members))
            #expect(decoded != base, "\(field.wireName) is declared but the codec ignores it")
            #expect(try ActivityPayload.decode(ActivityPayload.encode(decoded)) == decoded, "\(field.wireName) round-trips")
        }
    }

    @Test func c3_theWireAndTheCommandLineGiveTheSameProblemForTheSameValue() throws {
        #expect(throws: ProtocolError(.invalid, field: "activity.tint", "must be \(NookTint.accepted); got 'chartreuse'")) {
            try ActivityPayload.decode(.object([("title", .string("t")), ("tint", .string("chartreuse"))]))
        }
        #expect(ActivityFieldValue.tint("chartreuse") == .failure(FieldProblem("must be \(NookTint.accepted); got 'chartreuse'")))
        #expect(ActivityField.name(ofWireField: "expiresAfter", commandLine: true) == "--expires-after")
        #expect(ActivityField.name(ofWireField: "expiresAfter", commandLine: false) == "activity.expiresAfter")
    }
}
