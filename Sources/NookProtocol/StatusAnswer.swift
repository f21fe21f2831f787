import NookActivities

/// `status` (Q12): the display, the inputs and every module's queue.
public struct StatusAnswer: NookAnswer {
    public struct Display: Sendable, Equatable {
        public var backend: String
        /// The mode as the backend names it: `HDMI-A-1 1280x400@60.0Hz`.
        public var mode: String
        public var rotation: Int
        public var theme: String
        public var refreshHz: Double
        /// Median interval between the frames of the last slide, in milliseconds.
        public var slideFrameIntervalMs: Double?
        /// Page flips, where the backend flips pages (DRM).
        public var flips: Flips?
        /// False while switched off (`display`, M1); nil from a nookd that cannot switch it.
        public var on: Bool?
        /// Seconds until a display switched off for a while is on again.
        public var wakesInS: Int?

        public init(backend: String, mode: String, rotation: Int, theme: String, refreshHz: Double,
                    slideFrameIntervalMs: Double? = nil, flips: Flips? = nil, on: Bool? = nil, wakesInS: Int? = nil) {
            (self.backend, self.mode, self.rotation, self.theme, self.refreshHz) = (backend, mode, rotation, theme, refreshHz)
            (self.slideFrameIntervalMs, self.flips, self.on, self.wakesInS) = (slideFrameIntervalMs, flips, on, wakesInS)
        }
    }

    public struct Flips: Sendable, Equatable {
        public var requested: Int
        public var completed: Int
        public var timedOut: Int

        public init(requested: Int, completed: Int, timedOut: Int) {
            (self.requested, self.completed, self.timedOut) = (requested, completed, timedOut)
        }
    }

    /// One engagement input (I3) as the queue sees it.
    public struct Input: Sendable, Equatable {
        public var input: String
        public var role: String
        public var active: Bool
        /// Why the input cannot be used right now (a missing or unreadable sensor): then it is
        /// unavailable, not idle.
        public var problem: String?
        /// A proximity sensor's last value, in the units its `in_proximity_raw` prints.
        public var reading: Double?

        public init(input: String, role: String, active: Bool, problem: String? = nil, reading: Double? = nil) {
            (self.input, self.role, self.active, self.problem, self.reading) = (input, role, active, problem, reading)
        }
    }

    public struct GPIO: Sendable, Equatable {
        public var library: String
        public var api: Int
        public var lines: [GPIOLine]

        public init(library: String, api: Int, lines: [GPIOLine]) { (self.library, self.api, self.lines) = (library, api, lines) }
    }

    public struct GPIOLine: Sendable, Equatable {
        public var name: String
        public var role: String
        public var location: String
        /// Nil while the line is not available.
        public var active: Bool?
        public var changes: Int
        public var lastEdgeToWakeMs: Double?
        public var problem: String?

        public init(name: String, role: String, location: String, active: Bool?, changes: Int,
                    lastEdgeToWakeMs: Double? = nil, problem: String? = nil) {
            (self.name, self.role, self.location, self.active, self.changes) = (name, role, location, active, changes)
            (self.lastEdgeToWakeMs, self.problem) = (lastEdgeToWakeMs, problem)
        }
    }

    /// Z3: whether someone is in the room, as nookd acts on it.
    public struct Presence: Sendable, Equatable {
        /// `present`, `dimmed` (nobody for a while) or `away` (the display is off).
        public var state: String
        /// Timed cards that ended while nobody was there, for the digest.
        public var unseen: Int
        /// The last return (someone back after the display dimmed or went off): milliseconds
        /// from nookd hearing it to the panel lit and the backlight up again (`lastReturnMs`).
        public var lastReturnMs: Double?

        public init(state: String, unseen: Int, lastReturnMs: Double? = nil) {
            (self.state, self.unseen, self.lastReturnMs) = (state, unseen, lastReturnMs)
        }
    }

    /// Z2: the brightness, with a `[brightness]` table.
    public struct Brightness: Sendable, Equatable {
        /// `active`, `night`, `idle`, `quiet` or `dimmed`.
        public var state: String
        /// The level last written, of `maximum`.
        public var level: Int
        public var maximum: Int
        /// Where it goes: the backlight's `brightness` file, or `frames` (the drawn frames dimmed).
        public var output: String
        /// The room's light the levels follow, in lux (an ambient light sensor's reading).
        public var lux: Double?
        /// The percentage set over the API (`display`); nil: nook.toml's levels and the room.
        public var percentSet: Int?
        /// The brightness as a percentage set over the API would give it: the one set, else the
        /// one that would keep the glass as it is now (the level aimed at, on `brightness.active`'s
        /// scale), so that a hub reading it and writing it back changes nothing.
        public var percent: Int?

        public init(state: String, level: Int, maximum: Int, output: String, lux: Double? = nil, percentSet: Int? = nil, percent: Int? = nil) {
            (self.state, self.level, self.maximum, self.output, self.lux) = (state, level, maximum, output, lux)
            (self.percentSet, self.percent) = (percentSet, percent)
        }
    }

    /// The touch panel (T1) and what its fingers did last (T2).
    public struct Touch: Sendable, Equatable {
        /// The device node read, nil while none is found.
        public var device: String?
        /// The name the kernel gives the device.
        public var name: String?
        /// The last gesture's name (`tap`, `swipe`, `long-press`, `cancelled`, …).
        public var lastGesture: String?
        /// Gestures since nookd started.
        public var gestures: Int
        /// A tap opened the nook (cards wait until the next tap).
        public var open: Bool
        /// Long-pressed cards waiting to come back.
        public var snoozed: Int
        public var problem: String?

        public init(device: String?, name: String?, lastGesture: String?, gestures: Int, open: Bool, snoozed: Int, problem: String?) {
            (self.device, self.name, self.lastGesture, self.gestures) = (device, name, lastGesture, gestures)
            (self.open, self.snoozed, self.problem) = (open, snoozed, problem)
        }

        var json: JSONValue {
            .object([("device", device.map(JSONValue.string) ?? .null), ("name", name.map(JSONValue.string) ?? .null),
                     ("lastGesture", lastGesture.map(JSONValue.string) ?? .null), ("gestures", .number(Double(gestures))),
                     ("open", .bool(open)), ("snoozed", .number(Double(snoozed))), ("problem", problem.map(JSONValue.string) ?? .null)])
        }

        init(reading touch: FieldReader) throws(ProtocolError) {
            self.init(device: try touch.string("device"), name: try touch.string("name"), lastGesture: try touch.string("lastGesture"),
                      gestures: try touch.requiredCount("gestures"), open: try touch.requiredBool("open"),
                      snoozed: try touch.requiredCount("snoozed"), problem: try touch.string("problem"))
        }
    }

    /// The apps (A1) and their rotation (A2): how many, the one on the glass, and whether the
    /// rotation turns or is held.
    public struct Apps: Sendable, Equatable {
        /// What the rotation does now.
        public enum Rotation: String, Sendable, CaseIterable {
            /// The home content and the apps take turns.
            case turning
            /// A card holds the glass (one live, or held back): the rotation waits for it.
            case card
            /// Someone is engaged (I1): the rotation holds still on what it shows.
            case engaged
            /// The mood light is on (M1): no app shows until it is off.
            case moodLight = "mood-light"
            /// There are no apps: there is no rotation.
            case noApps = "none"
        }

        public var count: Int
        /// The app on the glass now, or nil (the home content, a card, or no apps).
        public var showing: String?
        public var rotation: Rotation

        public init(count: Int, showing: String?, rotation: Rotation) { (self.count, self.showing, self.rotation) = (count, showing, rotation) }

        var json: JSONValue {
            .object([("count", .number(Double(count))), ("showing", showing.map(JSONValue.string) ?? .null), ("rotation", .string(rotation.rawValue))])
        }

        init(reading apps: FieldReader) throws(ProtocolError) {
            // A word a later nookd adds reads as turning rather than failing the whole status.
            self.init(count: try apps.requiredCount("count"), showing: try apps.string("showing"),
                      rotation: try apps.oneOfIfKnown("rotation", Rotation.self) ?? .turning)
        }
    }

    /// An indicator light (M1): its colour while lit (`#rrggbb`, nil while off), blink and fade.
    public struct Indicator: Sendable, Equatable {
        public var number: Int
        public var color: String?
        public var blinkMs: Int
        public var fadeMs: Int

        public init(number: Int, color: String?, blinkMs: Int, fadeMs: Int) {
            (self.number, self.color, self.blinkMs, self.fadeMs) = (number, color, blinkMs, fadeMs)
        }

        var json: JSONValue {
            .object([("number", .number(Double(number))), ("color", color.map(JSONValue.string) ?? .null),
                     ("blinkMs", .number(Double(blinkMs))), ("fadeMs", .number(Double(fadeMs)))])
        }

        init(reading light: FieldReader) throws(ProtocolError) {
            self.init(number: try light.requiredInt("number"), color: try light.string("color"),
                      blinkMs: try light.count("blinkMs") ?? 0, fadeMs: try light.count("fadeMs") ?? 0)
        }
    }

    public struct Module: Sendable, Equatable {
        public var name: String
        public var current: NookActivity?
        /// The current activity's phase (`animateIn`, `presented`, …).
        public var phase: NookPresentationPhase?
        public var pending: Int
        public var capacity: Int
        public var suspended: Bool
        public var displayAvailable: Bool
        /// Why the drain waits, when it does (engaged, denied, …).
        public var parked: String?
        /// The blocker holding the queue (Q14).
        public var blockedBy: NookActivity?

        public init(name: String, current: NookActivity? = nil, phase: NookPresentationPhase? = nil, pending: Int, capacity: Int,
                    suspended: Bool, displayAvailable: Bool, parked: String? = nil, blockedBy: NookActivity? = nil) {
            (self.name, self.current, self.phase, self.pending, self.capacity) = (name, current, phase, pending, capacity)
            (self.suspended, self.displayAvailable, self.parked, self.blockedBy) = (suspended, displayAvailable, parked, blockedBy)
        }
    }

    public var version: Int
    public var foreground: String?
    public var display: Display
    public var home: String
    public var engaged: Bool
    public var inputs: [Input]
    public var gpio: GPIO?
    public var modules: [Module]
    public var connections: Int
    /// Bytes waiting for clients to read them, all connections together (bounded by
    /// `daemon.max_buffered_bytes`); nil from a nookd that does not say.
    public var bufferedBytes: Int?
    /// Nil when no input reports presence.
    public var presence: Presence?
    /// Nil without a `[brightness]` table.
    public var brightness: Brightness?
    /// Nil when touch is off (`touch.enabled = false`), or from a nookd without touch.
    public var touch: Touch?
    /// Nil from a nookd without apps (older than A1): the member is additive.
    public var apps: Apps?
    /// The indicator lights, 1 to 3; nil from a nookd without them (the member is additive).
    public var indicators: [Indicator]?
    /// Nil from a nookd without sound outputs (older than B1).
    public var sound: Sound?

    public init(version: Int = NookProtocol.version, foreground: String?, display: Display, home: String, engaged: Bool,
                inputs: [Input], gpio: GPIO?, modules: [Module], connections: Int, presence: Presence? = nil, brightness: Brightness? = nil,
                touch: Touch? = nil, apps: Apps? = nil, sound: Sound? = nil) {
        (self.version, self.foreground, self.display, self.home, self.engaged) = (version, foreground, display, home, engaged)
        (self.inputs, self.gpio, self.modules, self.connections, self.presence) = (inputs, gpio, modules, connections, presence)
        (self.brightness, self.touch, self.apps, self.sound) = (brightness, touch, apps, sound)
    }

    /// Apart from the rest of the object: one expression more than the type checker allows.
    private var touchMember: [(String, JSONValue)] {
        [("touch", touch?.json ?? .null), ("apps", apps?.json ?? .null),
         ("indicators", indicators.map { .array($0.map(\.json)) } ?? .null), ("sound", sound?.json ?? .null)]
    }

    public var json: JSONValue {
        let flips: JSONValue = display.flips.map { flips in
            .object([("requested", .number(Double(flips.requested))), ("completed", .number(Double(flips.completed))),
                     ("timedOut", .number(Double(flips.timedOut)))])
        } ?? .null
        let displayJSON = JSONValue.object([
            ("backend", .string(display.backend)), ("mode", .string(display.mode)),
            ("rotation", .number(Double(display.rotation))), ("theme", .string(display.theme)),
            ("refreshHz", .number(display.refreshHz)),
            ("slideFrameIntervalMs", display.slideFrameIntervalMs.map(JSONValue.number) ?? .null),
            ("flips", flips), ("power", display.on.map { .string($0 ? "on" : "off") } ?? .null),
            ("wakesInS", display.wakesInS.map { .number(Double($0)) } ?? .null),
        ])
        let gpioJSON: JSONValue = gpio.map { gpio in
            .object([("library", .string(gpio.library)), ("api", .number(Double(gpio.api))), ("lines", .array(gpio.lines.map { line in
                .object([
                    ("name", .string(line.name)), ("role", .string(line.role)), ("location", .string(line.location)),
                    ("active", line.active.map(JSONValue.bool) ?? .null),
                    ("changes", .number(Double(line.changes))),
                    ("lastEdgeToWakeMs", line.lastEdgeToWakeMs.map(JSONValue.number) ?? .null),
                    ("problem", line.problem.map(JSONValue.string) ?? .null),
                ])
            }))])
        } ?? .null
        let members: [(String, JSONValue)] = [
            ("version", .number(Double(version))),
            ("foreground", foreground.map(JSONValue.string) ?? .null),
            ("display", displayJSON),
            ("home", .string(home)),
            ("engaged", .bool(engaged)),
            ("inputs", .array(inputs.map { input in
                .object([("input", .string(input.input)), ("role", .string(input.role)), ("active", .bool(input.active)),
                         ("problem", input.problem.map(JSONValue.string) ?? .null), ("reading", input.reading.map(JSONValue.number) ?? .null)])
            })),
            ("gpio", gpioJSON),
            ("modules", .array(modules.map { module in
                .object([
                    ("name", .string(module.name)),
                    ("current", module.current.map(ActivityPayload.encode) ?? .null),
                    ("phase", module.phase.map { .string($0.rawValue) } ?? .null),
                    ("pending", .number(Double(module.pending))),
                    ("capacity", .number(Double(module.capacity))),
                    ("suspended", .bool(module.suspended)),
                    ("displayAvailable", .bool(module.displayAvailable)),
                    ("parked", module.parked.map(JSONValue.string) ?? .null),
                    ("blockedBy", module.blockedBy.map(ActivityPayload.encode) ?? .null),
                ])
            })),
            ("connections", .number(Double(connections))),
            ("bufferedBytes", bufferedBytes.map { .number(Double($0)) } ?? .null),
            ("presence", presence.map { .object([("state", .string($0.state)), ("unseen", .number(Double($0.unseen))),
                                                 ("lastReturnMs", $0.lastReturnMs.map(JSONValue.number) ?? .null)]) } ?? .null),
            ("brightness", brightness.map { brightness in
                .object([("state", .string(brightness.state)), ("level", .number(Double(brightness.level))),
                         ("maximum", .number(Double(brightness.maximum))), ("output", .string(brightness.output)),
                         ("lux", brightness.lux.map(JSONValue.number) ?? .null),
                         ("set", brightness.percentSet.map { .number(Double($0)) } ?? .null),
                         ("percent", brightness.percent.map { .number(Double($0)) } ?? .null)])
            } ?? .null),
        ]
        return .object(members + touchMember)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        version = try reader.requiredInt("version")
        foreground = try reader.string("foreground")
        let display = try reader.requiredObject("display")
        self.display = Display(
            backend: try display.requiredString("backend"), mode: try display.requiredString("mode"),
            rotation: try display.requiredInt("rotation"), theme: try display.requiredString("theme"),
            refreshHz: try display.requiredNumber("refreshHz", in: 0...100_000),
            slideFrameIntervalMs: try display.number("slideFrameIntervalMs", in: 0...1e9),
            flips: try display.object("flips").map { (flips) throws(ProtocolError) in
                Flips(requested: try flips.requiredCount("requested"), completed: try flips.requiredCount("completed"),
                      timedOut: try flips.requiredCount("timedOut"))
            },
            on: try display.string("power").map { $0 != "off" }, wakesInS: try display.count("wakesInS"))
        home = try reader.requiredString("home")
        engaged = try reader.requiredBool("engaged")
        inputs = try reader.requiredObjects("inputs").map { (input) throws(ProtocolError) in
            Input(input: try input.requiredString("input"), role: try input.requiredString("role"), active: try input.requiredBool("active"),
                  problem: try input.string("problem"), reading: try input.number("reading", in: -1e15...1e15))
        }
        gpio = try reader.object("gpio").map { (gpio) throws(ProtocolError) in
            GPIO(library: try gpio.requiredString("library"), api: try gpio.requiredInt("api"),
                 lines: try gpio.requiredObjects("lines").map { (line) throws(ProtocolError) in
                     GPIOLine(name: try line.requiredString("name"), role: try line.requiredString("role"),
                              location: try line.requiredString("location"), active: try line.bool("active"),
                              changes: try line.requiredCount("changes"), lastEdgeToWakeMs: try line.number("lastEdgeToWakeMs", in: -1e12...1e12),
                              problem: try line.string("problem"))
                 })
        }
        modules = try reader.requiredObjects("modules").map { (module) throws(ProtocolError) in
            Module(name: try module.requiredString("name"),
                   current: try module.value("current").map { (value) throws(ProtocolError) in try ActivityPayload.decode(value, path: module.name("current")) },
                   phase: try module.oneOfIfKnown("phase", NookPresentationPhase.self), pending: try module.requiredCount("pending"),
                   capacity: try module.requiredCount("capacity"), suspended: try module.requiredBool("suspended"),
                   displayAvailable: try module.requiredBool("displayAvailable"), parked: try module.string("parked"),
                   blockedBy: try module.value("blockedBy").map { (value) throws(ProtocolError) in try ActivityPayload.decode(value, path: module.name("blockedBy")) })
        }
        connections = try reader.requiredCount("connections")
        bufferedBytes = try reader.count("bufferedBytes")
        presence = try reader.object("presence").map { (presence) throws(ProtocolError) in
            Presence(state: try presence.requiredString("state"), unseen: try presence.requiredCount("unseen"),
                     lastReturnMs: try presence.number("lastReturnMs", in: -1e12...1e12))
        }
        brightness = try reader.object("brightness").map { (brightness) throws(ProtocolError) in
            Brightness(state: try brightness.requiredString("state"), level: try brightness.requiredCount("level"),
                       maximum: try brightness.requiredCount("maximum"), output: try brightness.requiredString("output"),
                       lux: try brightness.number("lux", in: -1e12...1e12),
                       percentSet: try brightness.number("set", in: 0...100).map { Int($0.rounded()) },
                       percent: try brightness.number("percent", in: 0...100).map { Int($0.rounded()) })
        }
        touch = try reader.object("touch").map { (touch) throws(ProtocolError) in try Touch(reading: touch) }
        apps = try reader.object("apps").map { (apps) throws(ProtocolError) in try Apps(reading: apps) }
        indicators = reader.value("indicators") == nil ? nil
            : try reader.requiredObjects("indicators").map { (light) throws(ProtocolError) in try Indicator(reading: light) }
        sound = try reader.object("sound").map { (sound) throws(ProtocolError) in try Sound(reading: sound) }
    }
}
