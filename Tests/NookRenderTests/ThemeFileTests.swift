#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookConfig
import NookDisplay
import NookRender
import NookTestTraits
import Testing

@Suite("R2 themes from files", .cpuBound)
struct ThemeFileTests {
    @Test func r2_aThemeTableOverridesTheChosenBase() throws {
        let reader = ConfigReader(try ConfigDocument(parsing: """
            [theme]
            appearance = "light"
            accent = "#112233"
            corner_radius = 0.3
            title_scale = 1.25
            palette.green = "#00AA00"
            """, source: "nook.toml"))
        let theme = try Theme.load(from: reader)
        #expect(theme.appearance == .light)
        #expect(theme.cardBackground == Theme.light.cardBackground)
        #expect(theme.accent == RGB(hex: 0x112233))
        #expect(theme.cornerRadius == 0.3 && theme.titleScale == 1.25)
        #expect(theme.color(for: .named(.green)) == RGB(hex: 0x00AA00))
        try reader.rejectUnknownKeys(known: ["theme", "theme.palette"])
    }

    @Test func r2_aThemeFileIsLoadedAndItsErrorsNameFileLineAndKey() throws {
        let directory = "/tmp/nook-theme-test-\(getpid())"
        mkdir(directory, 0o755)
        defer { unlink(directory + "/ocean.toml"); unlink(directory + "/bad.toml"); rmdir(directory) }
        try write("[theme]\nappearance = \"dark\"\ncard = \"#003355\"\n", to: directory + "/ocean.toml")
        let reader = ConfigReader(try ConfigDocument(parsing: "[theme]\nfile = \"ocean.toml\"\naccent = \"#FF0000\"", source: "nook.toml"))
        let theme = try Theme.load(from: reader, directory: directory)
        #expect(theme.cardBackground == RGB(hex: 0x003355))
        #expect(theme.accent == RGB(hex: 0xFF0000), "the config's own keys win over the file")

        try write("[theme]\n\ncard = \"navy\"\n", to: directory + "/bad.toml")
        let badReader = ConfigReader(try ConfigDocument(parsing: "[theme]\nfile = \"bad.toml\"", source: "nook.toml"))
        do {
            _ = try Theme.load(from: badReader, directory: directory)
            Issue.record("navy is not #RRGGBB")
        } catch {
            #expect(error.description == "\(directory)/bad.toml:3: theme.card: must be a colour as \"#RRGGBB\", got \"navy\"")
        }
    }

    @Test func r2_outOfRangeValuesAreRejected() throws {
        let reader = ConfigReader(try ConfigDocument(parsing: "[theme]\ncorner_radius = 2", source: "t"))
        #expect(throws: ConfigError.self) { try Theme.load(from: reader) }
    }

    private func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw ConfigError(source: path, line: nil, key: nil, message: "cannot write") }
        fputs(text, file)
        fclose(file)
    }
}
