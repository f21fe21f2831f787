import Foundation

/// A VCNL4040 as Linux 6.12's `vcnl4000` driver shows it under sysfs, in a scratch directory,
/// and the `[proximity]` table that makes nookd poll it every 20 ms (near from 50, far below 40).
struct FakeProximitySensor {
    let device: String
    /// The `[proximity]` table, for a config file (with whatever tables go before it).
    let configTable: String

    init(in scratch: Scratch, reading: String) throws {
        device = scratch.path + "/iio/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "vcnl4000\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try "0.000100\n".write(toFile: device + "/in_proximity_integration_time", atomically: true, encoding: .utf8)
        configTable = """
            [proximity]
            name = "vcnl4000"
            threshold = 50
            hysteresis = 10
            interval_ms = 20
            sysfs_root = "\(scratch.path)/iio"
            """
        try read(reading)
    }

    /// What `in_proximity_raw` reads from now on (a hand coming near: "64").
    func read(_ value: String) throws {
        try "\(value)\n".write(toFile: device + "/in_proximity_raw", atomically: true, encoding: .utf8)
    }
}
