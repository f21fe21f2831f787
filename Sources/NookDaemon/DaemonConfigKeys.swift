import NookConfig

extension DaemonConfig {
    /// Every key nookd's config reader accepts, as the reader itself asks for them: it reads a
    /// document that turns on each table whose keys are read only when another key is set (a
    /// proximity sensor, an ambient light sensor, a presence input). A `[gpio.NAME]` table's
    /// keys are given as `gpio.NAME.KEY`. nook.toml(5) is checked against this list.
    public static func acceptedKeys() throws(ConfigError) -> [String] {
        let document = try ConfigDocument(parsing: """
            [proximity]
            name = "sensor"
            [brightness]
            ambient_sensor = "light"
            [gpio.NAME]
            role = "presence"
            line = "LINE"
            """, source: "acceptedKeys")
        let reader = ConfigReader(document)
        _ = try DaemonConfig(reading: reader)
        return reader.askedKeys.sorted()
    }
}
