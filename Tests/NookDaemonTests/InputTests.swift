import Foundation
import NookActivities
import NookConfig
@testable import NookDaemon
import NookInput
import NookProtocol
import NookTestTraits
import Testing

@Suite("I2 I4 engagement inputs in nookd", .serialized, .ownThreads)
struct DaemonInputTests {
    /// A VCNL4040 on Linux 6.12 prints its reading as a fraction (`64.000000000`)
    /// and is named `vcnl4000` like every chip of its driver; nookd refused the value.
    @Test func i2_aVCNL4040sFractionalReadingMakesNookdYieldWhileSomeoneIsNear() throws {
        let scratch = Scratch()
        let sensor = try FakeProximitySensor(in: scratch, reading: "64.000000000")
        let config = scratch.file("nook.toml", sensor.configTable)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("hover reported") { (try daemon.request(.status))["engaged"] == .bool(true) }
        // A dwell no loaded machine outlasts before the poll below sees the card on the glass.
        try daemon.request(.enqueue(NookActivity(title: "Waits for you", dwell: .seconds(60)), module: nil, wait: false))
        try eventually("the queue yielding") {
            (try daemon.request(.status))["modules"]?.items.first?["parked"]?.text?.contains("yielding to the user") == true
        }
        let status = try nookctl(["status"], socket: daemon.socket).output
        #expect(status.contains("input proximity:vcnl4000 (hover): active, reading 64\n"))

        try sensor.read("0.750000000")
        try eventually("the card once the user moved away") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Waits for you")
        }
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("input proximity:vcnl4000 (hover): idle, reading 0.75\n"))
        #expect(!daemon.log.contains("not a value"))
        #expect(daemon.stop().status == 0)
    }

    @Test func i4_aMissingSensorIsAWarningAndNookdRunsWithoutEngagement() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[proximity]\nname = \"vcnl4000\"\nsysfs_root = \"\(scratch.path)/none\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("the warning") { daemon.log.contains("running without it until it appears") }
        try daemon.request(.enqueue(NookActivity(title: "Shown anyway", dwell: .seconds(60)), module: nil, wait: false))
        try eventually("the card shown without a sensor") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Shown anyway")
        }
        #expect(daemon.stop().status == 0)
    }

    /// Status called a missing or unreadable sensor `idle`, like one reading far.
    @Test func i4_statusShowsAMissingOrUnreadableSensorAsUnavailableWithWhy() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/iio", withIntermediateDirectories: true)
        let config = scratch.file("nook.toml", "[proximity]\nname = \"vcnl4000\"\nsysfs_root = \"\(scratch.path)/iio\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("the warning") { daemon.log.contains("until it appears") }
        let missing = try nookctl(["status"], socket: daemon.socket).output
        #expect(missing.contains("input proximity:vcnl4000 (hover): unavailable (no IIO device named 'vcnl4000' under \(scratch.path)/iio)"), "\(missing)")
        let json = try daemon.request(.status)
        #expect(json["inputs"]?.items.first?["problem"]?.text?.contains("no IIO device named") == true)

        // There, but its reading is not a number: a different warning, and status says why.
        let device = scratch.path + "/iio/iio:device3"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "0.000100\n".write(toFile: device + "/in_proximity_integration_time", atomically: true, encoding: .utf8)
        try "12 13\n".write(toFile: device + "/in_proximity_raw", atomically: true, encoding: .utf8)
        try "vcnl4000\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try eventually("the unparseable warning") { daemon.log.contains("its reading is not understood") }
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("input proximity:vcnl4000 (hover): unavailable (\(device)/in_proximity_raw holds '12 13', not a value as the IIO core prints one)"))
        #expect(daemon.stop().status == 0)
    }

    @Test func i2_proximitySettingsAreValidatedLikeEveryOtherKey() throws {
        let scratch = Scratch()
        let bad = scratch.file("nook.toml", "[proximity]\nname = \"vcnl4000\"\nthreshold = 100\nhysteresis = 150\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", bad])
        #expect(daemon.process.terminationStatus == 2)
        #expect(daemon.log.contains("nook.toml:4: proximity.hysteresis: must not exceed proximity.threshold (100), got 150"))
    }

    @Test func i1_i4_aGPIOLineThatIsNotThereIsAWarningAndStatusSaysWhy() throws {
        let scratch = Scratch()
        // This machine has no GPIO chip; a board without the button wired behaves the same.
        let config = scratch.file("nook.toml", """
            [gpio.button]
            line = "NOOK_BUTTON"
            role = "open"
            active_low = true
            bias = "pull-up"
            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("the warning") { daemon.log.contains("gpio:button: no GPIO chip under /dev; running without it until it appears") }
        let status = try nookctl(["status"], socket: daemon.socket).output
        #expect(status.contains("gpio: libgpiod "))
        #expect(status.contains("  button (open) at line NOOK_BUTTON: unavailable, 0 changes (no GPIO chip under /dev)"))
        try daemon.request(.enqueue(NookActivity(title: "Shown anyway", dwell: .seconds(60)), module: nil, wait: false))
        try eventually("the card shown without the button") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Shown anyway")
        }
        #expect(daemon.stop().status == 0)
    }
}

@Suite("I1 N1 [gpio.NAME] tables and other config values", .ownThreads)
struct GPIOConfigTests {
    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    @Test func i1_everyRoleAndWayOfNamingALineIsRead() throws {
        let config = try parse("""
            [gpio.button]
            line = "NOOK_BUTTON"
            role = "open"
            active_low = true
            bias = "pull-up"
            debounce_ms = 50

            [gpio.lid]
            chip = "pinctrl-bcm2711"
            offset = 27
            role = "open"
            mode = "level"

            [gpio.pir]
            chip = "gpiochip0"
            line = "NOOK_PIR"
            role = "hover"

            [gpio.dismiss]
            chip = "/dev/gpiochip4"
            offset = 5
            role = "dismiss"
            bias = "disabled"
            """)
        #expect(config.inputs.gpioLines.map(\.name) == ["button", "lid", "pir", "dismiss"])
        var button = GPIOLineSettings(name: "button", role: .open, lineName: "NOOK_BUTTON")
        button.activeLow = true
        button.bias = .pullUp
        button.debounce = .milliseconds(50)
        button.longPressAfter = .milliseconds(800)  // a toggle button's recall gesture (U5), by default
        #expect(config.inputs.gpioLines[0] == button)
        #expect(config.inputs.gpioLines[1].openMode == .level && config.inputs.gpioLines[1].chip == "pinctrl-bcm2711" && config.inputs.gpioLines[1].offset == 27)
        #expect(config.inputs.gpioLines[2].location == "line NOOK_PIR on gpiochip0")
        #expect(config.inputs.gpioLines[3].bias == .disabled && config.inputs.gpioLines[3].debounce == .milliseconds(30))
    }

    @Test(arguments: [
        ("[gpio.button]\nline = \"B\"\n", "nook.toml: gpio.button.role: is required: hover, open, dismiss or presence"),
        ("[gpio.button]\nrole = \"press\"\nline = \"B\"\n", "nook.toml:2: gpio.button.role: must be one of hover, open, dismiss"),
        ("[gpio.button]\nrole = \"open\"\n", "nook.toml: gpio.button.line: is required (a gpio-line-names name), or chip and offset"),
        ("[gpio.button]\nrole = \"open\"\noffset = 3\n", "nook.toml:3: gpio.button.offset: needs chip = \"gpiochipN\" (or the chip's label) to say which chip"),
        ("[gpio.button]\nrole = \"open\"\nline = \"B\"\nchip = \"gpiochip0\"\noffset = 3\n", "nook.toml:5: gpio.button.offset: give either line (a name) or chip and offset, not both"),
        ("[gpio.pir]\nrole = \"hover\"\nline = \"P\"\nmode = \"level\"\n", "nook.toml:4: gpio.pir.mode: applies only to role = \"open\""),
        ("[gpio.button]\nrole = \"open\"\nline = \"B\"\nbias = \"up\"\n", "nook.toml:4: gpio.button.bias: must be one of as-is, disabled, pull-up, pull-down"),
        ("[gpio.button]\nrole = \"open\"\nline = \"B\"\ndebounce_ms = 5000\n", "nook.toml:4: gpio.button.debounce_ms"),
        ("[gpio.button]\nrole = \"open\"\nline = \"B\"\nactive_lo = true\n", "nook.toml:4: gpio.button.active_lo: is not a known setting"),
        ("[gpio]\nrole = \"open\"\n", "nook.toml:2: gpio.role: GPIO inputs go in tables of their own, such as [gpio.button] with role = \"open\""),
        // Found by fuzzing (Tests/Fuzz/config/regression-empty-display-mode.toml): an empty mode crashed nookd.
        ("[display]\nmode = \"\"\n", "nook.toml:2: display.mode: must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ"),
        ("[display]\nmode = \"@60\"\n", "nook.toml:2: display.mode: must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ"),
    ])
    func i1_n1_aBadGPIOTableOrDisplayModeNamesTheKeyAndLine(text: String, message: String) {
        #expect(throws: ConfigError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }
}
