import Foundation
import NookActivities
import NookProtocol
import Testing

@Suite("I2 I4 engagement inputs in nookd", .serialized)
struct DaemonInputTests {
    @Test func i2_aProximitySensorMakesNookdYieldWhileSomeoneIsNear() throws {
        let scratch = Scratch()
        let device = scratch.path + "/iio/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "vcnl4040\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try "900\n".write(toFile: device + "/in_proximity_raw", atomically: true, encoding: .utf8)
        let config = scratch.file("nook.toml", """
            [proximity]
            name = "vcnl4040"
            threshold = 300
            hysteresis = 50
            interval_ms = 20
            sysfs_root = "\(scratch.path)/iio"
            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("hover reported") { (try daemon.request(.status))["engaged"] == .bool(true) }
        try daemon.request(.enqueue(NookActivity(title: "Waits for you"), module: nil, wait: false))
        try eventually("the queue yielding") {
            (try daemon.request(.status))["modules"]?.items.first?["parked"]?.text?.contains("yielding to the user") == true
        }
        let status = try nookctl(["status"], socket: daemon.socket).output
        #expect(status.contains("input proximity:vcnl4040 (hover): active"))

        try "12\n".write(toFile: device + "/in_proximity_raw", atomically: true, encoding: .utf8)
        try eventually("the card once the user moved away") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Waits for you")
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func i4_aMissingSensorIsAWarningAndNookdRunsWithoutEngagement() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[proximity]\nname = \"vcnl4040\"\nsysfs_root = \"\(scratch.path)/none\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("the warning") { daemon.log.contains("running without it until it appears") }
        try daemon.request(.enqueue(NookActivity(title: "Shown anyway", dwell: .milliseconds(100)), module: nil, wait: false))
        try eventually("the card shown without a sensor") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Shown anyway")
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func i2_proximitySettingsAreValidatedLikeEveryOtherKey() throws {
        let scratch = Scratch()
        let bad = scratch.file("nook.toml", "[proximity]\nname = \"vcnl4040\"\nthreshold = 100\nhysteresis = 150\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", bad])
        #expect(daemon.process.terminationStatus == 2)
        #expect(daemon.log.contains("nook.toml:4: proximity.hysteresis: must not exceed proximity.threshold (100), got 150"))
    }
}
