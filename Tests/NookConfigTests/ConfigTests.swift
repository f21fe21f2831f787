import Glibc
import NookConfig
import Testing

@Suite("N1 config file syntax and checked values")
struct ConfigTests {
    let sample = """
        # Nook configuration
        top = "level"

        [display]
        backend = "mock"        # comment after a value
        size = '1280x400'
        rotation = 90
        refresh_hz = 59.94
        blank_when_idle = false
        modules = ["main", "ci"]
        escaped = "tab\\there \\"quoted\\" \\u00e9"

        [theme.palette]
        green = "#00FF00"
        """

    @Test func n1_parsesTablesValuesAndComments() throws {
        let document = try ConfigDocument(parsing: sample, source: "nook.toml")
        #expect(document["top"]?.value == .string("level"))
        #expect(document["display.backend"]?.value == .string("mock"))
        #expect(document["display.backend"]?.line == 5)
        #expect(document["display.size"]?.value == .string("1280x400"))
        #expect(document["display.rotation"]?.value == .integer(90))
        #expect(document["display.refresh_hz"]?.value == .float(59.94))
        #expect(document["display.blank_when_idle"]?.value == .bool(false))
        #expect(document["display.modules"]?.value == .array([.string("main"), .string("ci")]))
        #expect(document["display.escaped"]?.value == .string("tab\there \"quoted\" é"))
        #expect(document["theme.palette.green"]?.value == .string("#00FF00"))
        #expect(document.keys(in: "display").count == 7)
    }

    @Test(arguments: [
        ("[display\nx = 1", 1, "expected ']'"),
        ("x = ", 1, "value is missing"),
        ("x = \"open", 1, "not closed"),
        ("x = hello", 1, "is not a value"),
        ("\n\nx = 1\nx = 2", 4, "set twice (first on line 3)"),
        ("[a]\n[a]", 2, "appears twice"),
        ("x = [1, 2", 1, "expected ',' or ']'"),
        ("x = 1 2", 1, "unexpected"),
        ("= 3", 1, "expected a key name"),
        ("x = \"bad \\q escape\"", 1, "unknown escape"),
    ])
    func n1_syntaxErrorsNameTheLine(text: String, line: Int, message: String) {
        do {
            _ = try ConfigDocument(parsing: text, source: "nook.toml")
            Issue.record("'\(text)' must not parse")
        } catch {
            #expect(error.line == line)
            #expect(error.description.hasPrefix("nook.toml:\(line):"))
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func n1_typedGettersNameKeyLineAndWhatWasWrong() throws {
        let reader = ConfigReader(try ConfigDocument(parsing: sample, source: "nook.toml"))
        #expect(try reader.integer("display.rotation", in: 0...270) == 90)
        #expect(try reader.number("display.refresh_hz", in: 1...240) == 59.94)
        #expect(try reader.strings("display.modules") == ["main", "ci"])
        #expect(try reader.integer("display.missing", in: 0...1) == nil)

        #expect(throws: ConfigError.self) { try reader.integer("display.refresh_hz", in: 0...100) }
        do {
            _ = try reader.integer("display.rotation", in: 0...45)
        } catch {
            #expect(error.description == "nook.toml:7: display.rotation: must be from 0 to 45, got 90")
        }
        do {
            _ = try reader.choice("display.backend", among: ["drm", "fbdev"])
        } catch {
            #expect(error.description == "nook.toml:5: display.backend: must be one of drm, fbdev, got \"mock\"")
        }
        do {
            _ = try reader.bool("display.size")
        } catch {
            #expect(error.description.contains("must be true or false, got a string"))
        }
    }

    @Test func n1_unknownKeysAreRejectedWithTheirLine() throws {
        let reader = ConfigReader(try ConfigDocument(parsing: "[display]\nbackend = \"mock\"\nbakcend = \"drm\"\n[dispaly]\nx = 1", source: "f"))
        _ = try reader.string("display.backend")
        do {
            try reader.rejectUnknownKeys(known: ["display"])
            Issue.record("the typo must be caught")
        } catch {
            #expect(error.description == "f:3: display.bakcend: is not a known setting")
        }
        _ = try reader.string("display.bakcend")
        #expect(throws: ConfigError.self) { try reader.rejectUnknownKeys(known: ["display"]) }
    }

    /// A `[table]` with no key under it is recorded, and refused when unknown as a key in it
    /// would be: by a program that reads the whole file, and, of a shared file, by the program
    /// whose tables it is under (another program's tables are left to it).
    @Test func n1_anUnknownTableIsRefusedByNameEvenWithNoKeyUnderIt() throws {
        let document = try ConfigDocument(parsing: "[display]\nbackend = \"mock\"\n\n[dispaly]\n# nothing yet\n", source: "f")
        #expect(document.tables.map(\.name) == ["display", "dispaly"] && document.tables.map(\.line) == [1, 4])
        let whole = ConfigReader(document)
        _ = try whole.string("display.backend")
        #expect(throws: ConfigError(source: "f", line: 4, key: "dispaly", message: "is not a known table (known: [display])")) {
            try whole.rejectUnknownKeys(known: ["display"])
        }
        // Tables another program reads from the same file are not unknown.
        whole.leave(tables: ["dispaly"])
        try whole.rejectUnknownKeys(known: ["display"])
        let shared = ConfigReader(try ConfigDocument(parsing: "[daemon]\n[lcdproc]\n[lcdproc.kyes]\n", source: "f"))
        #expect(throws: ConfigError(source: "f", line: 3, key: "lcdproc.kyes", message: "is not a known table (known: [lcdproc], [lcdproc.keys])")) {
            try shared.rejectUnknownKeys(in: ["lcdproc", "lcdproc.keys"])
        }
        try ConfigReader(try ConfigDocument(parsing: "[daemon]\n[bogus]\n[lcdproc]\n", source: "f")).rejectUnknownKeys(in: ["lcdproc", "lcdproc.keys"])
        #expect(throws: ConfigError(source: "f", line: 1, key: "mqtt", message: "is not a known table (the file takes no tables)")) {
            try ConfigReader(try ConfigDocument(parsing: "[mqtt]\n", source: "f")).rejectUnknownKeys(known: [])
        }
    }

    @Test func n1_aMissingFileNamesTheCallAndErrno() {
        do {
            _ = try ConfigDocument.load(path: "/nonexistent/nook.toml")
            Issue.record("must fail")
        } catch {
            #expect(error.description.contains("/nonexistent/nook.toml") && error.description.contains("'open' failed: (2)"))
        }
    }

    /// `nookd --config` given a FIFO used to block in fopen until a writer came: at start-up,
    /// or for good on a SIGHUP reload.
    @Test func n1_aFIFOOrADeviceAsTheConfigIsRefusedWithoutBlocking() throws {
        let path = "/tmp/nook-config-fifo-\(getpid())"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        #expect(throws: ConfigError.self) { _ = try ConfigDocument.load(path: path) }
        do {
            _ = try ConfigDocument.load(path: path)
        } catch {
            #expect(error.description.contains("is a FIFO, not a regular file"))
        }
        do {
            _ = try ConfigDocument.load(path: "/dev/zero")
        } catch {
            #expect(error.description.contains("is a character device"))
        }
    }
}
