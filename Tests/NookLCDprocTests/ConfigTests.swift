import NookConfig
import NookLCDproc
import Testing

/// E8: `[lcdproc]` and `[lcdproc.keys]` in the board's nook.toml, checked as every Nook
/// setting is: errors name the key and its line; nookd's own tables are not nook-lcdproc's
/// business.
@Suite("E8 [lcdproc] config")
struct ConfigTests {
    func parse(_ text: String) throws(ConfigError) -> LCDConfig {
        try LCDConfig(ConfigDocument(parsing: text, source: "nook.toml"))
    }

    @Test func e8_everyLcdprocKeyIsReadAndNookdsTablesAreLeftAlone() throws {
        let config = try parse("""
            [display]
            rotation = 90
            [gpio.up]
            line = "UP"
            role = "open"
            [lcdproc]
            bind = "0.0.0.0"
            allow_network = true
            port = 13667
            size = "20x2"
            cell = "6x10"
            max_screens = 8
            max_widgets = 16
            max_clients = 4
            max_backlog = 65536
            module = "lcd"
            menu_timeout = 0
            [lcdproc.keys]
            open = "Enter"
            up = "Up"
            dismiss = ""
            """)
        var expected = LCDConfig()
        (expected.bind, expected.allowNetwork, expected.port) = ("0.0.0.0", true, 13667)
        (expected.columns, expected.rows, expected.cellWidth, expected.cellHeight) = (20, 2, 6, 10)
        (expected.maxScreens, expected.maxWidgets, expected.maxClients, expected.maxBacklog) = (8, 16, 4, 65536)
        expected.module = "lcd"
        expected.menuTimeout = 0
        expected.keys = ["open": "Enter", "up": "Up", "dismiss": ""]
        expected.gpioLines = ["up"]
        #expect(config == expected)
        #expect(try parse("[display]\nrotation = 90\n") == LCDConfig())
    }

    /// An empty table under `[lcdproc]` that nook-lcdproc does not know is refused by name;
    /// an empty table of nookd's (or any other program's) in the shared file is left alone.
    @Test func e8_anUnknownLcdprocTableIsRefusedEvenEmptyAndOtherProgramsTablesAreNot() throws {
        #expect(throws: ConfigError(source: "nook.toml", line: 2, key: "lcdproc.kyes", message: "is not a known table (known: [lcdproc], [lcdproc.keys])")) {
            try parse("[lcdproc]\n[lcdproc.kyes]\n")
        }
        #expect(try parse("[daemon]\n[bogus]\n[lcdproc]\n[lcdproc.keys]\n") == LCDConfig())
    }

    @Test(arguments: [
        ("[lcdproc]\nport = 70000\n", "lcdproc.port", 2),
        ("[lcdproc]\nmenu_timeout = 3601\n", "lcdproc.menu_timeout", 2),
        ("[lcdproc]\nport = \"13666\"\n", "lcdproc.port", 2),
        ("[lcdproc]\nbind = \"lcd.local\"\n", "lcdproc.bind", 2),
        ("[lcdproc]\nsize = \"40x4x2\"\n", "lcdproc.size", 2),
        ("[lcdproc]\nsize = \"100x4\"\n", "lcdproc.size", 2),
        ("[lcdproc]\ncell = \"0x8\"\n", "lcdproc.cell", 2),
        ("[lcdproc]\nmax_clients = 0\n", "lcdproc.max_clients", 2),
        ("[lcdproc]\nmodule = \"\"\n", "lcdproc.module", 2),
        ("[lcdproc]\nprot = 1\n", "lcdproc.prot", 2),
        ("[lcdproc.keys]\nopen = \"Two words\"\n", "lcdproc.keys.open", 2),
        ("[lcdproc.keys]\nopen = 1\n", "lcdproc.keys.open", 2),
        ("[lcdproc.keys]\ndimiss = \"Escape\"\n", "lcdproc.keys.dimiss", 2),
        ("[gpio.button]\nline = 3\n[lcdproc.keys]\nbuton = \"Up\"\n", "lcdproc.keys.buton", 4),
        ("[lcdproc.menu]\nkey = \"x\"\n", "lcdproc.menu.key", 2),
        ("lcdproc = 1\n", "lcdproc", 1),
    ])
    func e8_aBadLcdprocSettingIsRefusedNamingItsKeyAndLine(text: String, key: String, line: Int) {
        do {
            _ = try parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.key == key, "\(error)")
            #expect(error.line == line, "\(error)")
        }
    }

    @Test func e8_aNonLoopbackBindInTheFileIsHeldUntilTheFileOrTheFlagAllowsTheNetwork() throws {
        // Refused at once, before any flag was read, it could not be allowed by --allow-network.
        let held = try parse("[lcdproc]\nbind = \"10.0.0.2\"\n")
        let problem = try #require(held.bindNeedsAllowNetwork)
        #expect(problem.key == "lcdproc.bind" && problem.line == 2, "\(problem)")
        #expect(try parse("[lcdproc]\nbind = \"10.0.0.2\"\nallow_network = true\n").bindNeedsAllowNetwork == nil)
    }

    @Test func e8_keysMayNameARoleOrAGPIOLineOfTheSameFile() throws {
        let config = try parse("[gpio.doorbell]\nline = 4\n[lcdproc.keys]\ndoorbell = \"Up\"\ndismiss = \"Escape\"\n")
        #expect(config.keys == ["doorbell": "Up", "dismiss": "Escape"])
        #expect(LCDKeyMap.problem(withInput: "Open", gpioLines: ["doorbell"])?.contains("\"doorbell\"") == true)
    }
}
