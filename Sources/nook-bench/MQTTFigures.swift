#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookMQTT
import NookProtocol
import NookSystem

/// The MQTT bridge against Debian's mosquitto on loopback, with a release nookd and
/// nook-mqtt: publish → nookd accepted (p99), activities per second through one bridge (all
/// accepted: one coalescing key keeps nookd's queue at one pending card), the bridge's idle RSS.
struct MQTTFigures {
    let daemon: DaemonFigures
    var scratch: String { daemon.scratch + "/mqtt" }

    struct Result { var publishToEnqueueP99: Spread; var activitiesPerSecond: Spread; var bridgeCPUMicroseconds: Spread; var idleRSSMiB: Double }

    func run() throws -> Result {
        let status = spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                   "--package-path", daemon.packageRoot, "--product", "nook-mqtt"], quiet: true)
        guard status == 0 else { throw BenchError("could not build nook-mqtt (swift build exited \(status))") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else { throw BenchError("needs mosquitto: Hardware/dev/install-deps") }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try? System.changeMode(scratch, 0o777)
        let port = 20_000 + Int(getpid() % 20_000)
        // The broker's queue per client is raised above the burst: the figure is the bridge's,
        // not mosquitto's default of dropping what exceeds 1,000 queued messages.
        try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n".write(toFile: scratch + "/mosquitto.conf", atomically: true, encoding: .utf8)
        var broker: pid_t = 0
        guard spawn(["/usr/sbin/mosquitto", "-c", scratch + "/mosquitto.conf"], pid: &broker, quiet: true) == 0 else { throw BenchError("could not start mosquitto") }
        defer { daemon.stop(broker) }
        let socket = scratch + "/nookd.sock"
        let nookd = try daemon.startDaemon(socket: socket)
        defer { daemon.stop(nookd) }
        _ = try NookClient(path: socket).request(Request(id: .number(1), operation: .suspend(module: nil)))
        try "[mqtt]\nhost = \"127.0.0.1\"\nport = \(port)\ndevice = \"bench\"\n[homeassistant]\ndiscovery = false\n"
            .write(toFile: scratch + "/mqtt.toml", atomically: true, encoding: .utf8)
        var bridge: pid_t = 0
        // NOOK_BENCH_MQTT runs another bridge (an older build, to compare two in one sitting).
        let bridgeBinary = getenv("NOOK_BENCH_MQTT").map { String(cString: $0) } ?? daemon.binaries + "/nook-mqtt"
        guard spawn([bridgeBinary, "--config", scratch + "/mqtt.toml", "--socket", socket, "--log-level", "warning"],
                    pid: &bridge, quiet: true) == 0 else { throw BenchError("could not start nook-mqtt") }
        defer { daemon.stop(bridge) }

        let watch = try NookClient(path: socket)
        watch.readTimeout = .seconds(10)
        _ = try watch.request(Request(id: .number(1), operation: .watch))
        let publisher = try MQTTConnection(options: .init(clientID: "nook-bench-\(getpid())", cleanSession: true, host: "127.0.0.1", port: port))
        var online = false
        publisher.onMessage = { message in if message.topic == "nook/bench/availability", message.payload == Array("online".utf8) { online = true } }
        var connected = false
        publisher.onConnect = { code, _ in connected = code == 0 }
        for _ in 0..<200 where (try? publisher.connect()) == nil { usleep(20_000) }
        try pump(publisher, watch: nil, until: { _ in connected })
        try publisher.subscribe("nook/bench/availability")
        try pump(publisher, watch: nil, until: { _ in online })

        // Latency: one message at a time, from publish to nookd's `enqueued` event; the p99 of
        // each of 3 rounds of 300.
        var round = 0
        let p99 = try Self.rounds(3) {
            round += 1
            var samples: [Double] = []
            for index in 0..<300 {
                let title = "latency \(round).\(index)"
                let start = ContinuousClock.now
                try publisher.publish("nook/bench/activity", #"{"title":"\#(title)","key":"bench"}"#)
                try pump(publisher, watch: watch, until: { $0 == title })
                samples.append((ContinuousClock.now - start).nookSeconds * 1000)
            }
            samples.sort()
            return samples[Int(Double(samples.count - 1) * 0.99)]
        }

        // Throughput: 10,000 published at once, each round; done when nookd has enqueued every
        // one of them (counted, not inferred from the last: a broker that dropped some would
        // otherwise look fast). The bridge's CPU time per activity beside it: what the bridge's
        // work costs, which the machine's load changes far less than the rate.
        let count = 10_000
        var cpu: [Double] = []
        let rate = try Self.rounds(3) {
            round += 1
            let prefix = "burst \(round)."
            let before = daemon.cpuTicks(pid: bridge)
            let start = ContinuousClock.now
            for index in 0..<count { try publisher.publish("nook/bench/activity", #"{"title":"\#(prefix)\#(index)","key":"bench"}"#) }
            var seen = 0
            try pump(publisher, watch: watch, limit: 120, until: { title in
                if let title, title.hasPrefix(prefix) { seen += 1 }
                return seen == count
            })
            let seconds = (ContinuousClock.now - start).nookSeconds
            cpu.append(Double(daemon.cpuTicks(pid: bridge) - before) / Double(sysconf(Int32(_SC_CLK_TCK))) * 1e6 / Double(count))
            return Double(count) / seconds
        }

        sleep(2)
        let rss = Double(daemon.statusField(pid: bridge, "VmRSS:") ?? 0) / 1024
        return Result(publishToEnqueueP99: p99, activitiesPerSecond: rate, bridgeCPUMicroseconds: Spread(rounds: cpu), idleRSSMiB: rss)
    }

    /// `rounds` of Rounds.swift without `async`: this benchmark drives its own poll loop.
    static func rounds(_ count: Int, _ round: () throws -> Double) rethrows -> Spread {
        var values: [Double] = []
        for _ in 0..<count { values.append(try round()) }
        return Spread(rounds: values)
    }

    /// Drives the publisher's connection and reads nookd's events until `done` holds for an
    /// enqueued title (or for nothing, without a watch).
    private func pump(_ connection: MQTTConnection, watch: NookClient?, limit: Double = 20, until done: (String?) -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(limit)
        if done(nil) { return }
        while ContinuousClock.now < deadline {
            if let watch, watch.hasBufferedLine {
                if let line = try watch.readLine(), case .event(_, let json)? = try? ResponseLine.decode(line),
                   json["event"]?.text == "enqueued", done(json["title"]?.text) { return }
                continue
            }
            var descriptors = [pollfd(fd: connection.descriptor, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)]
            if let watch { descriptors.append(pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0)) }
            _ = try pollDescriptors(&descriptors, timeoutMilliseconds: 100)
            if descriptors[0].revents & Int16(POLLIN) != 0 { connection.readPackets() }
            if connection.wantsWrite { connection.writePackets() }
            connection.housekeeping()
            if descriptors.count > 1, descriptors[1].revents != 0, let line = try watch?.readLine(),
               case .event(_, let json)? = try? ResponseLine.decode(line), json["event"]?.text == "enqueued", done(json["title"]?.text) { return }
            if watch == nil, done(nil) { return }
        }
        throw BenchError("the MQTT figures timed out")
    }
}

func reportMQTTFigures(_ figures: DaemonFigures) {
    do {
        try figures.prepare()
        let result = try MQTTFigures(daemon: figures).run()
        report("mqtt_publish_to_enqueue_ms_p99", result.publishToEnqueueP99)
        report("mqtt_activities_per_s", result.activitiesPerSecond)
        report("mqtt_bridge_cpu_us_per_activity", result.bridgeCPUMicroseconds)
        report("mqtt_bridge_idle_rss_mib", result.idleRSSMiB)
        for (name, met) in [("mqtt_publish_to_enqueue_ms_p99 <= 5", result.publishToEnqueueP99.median <= 5),
                            ("mqtt_activities_per_s >= 5000", result.activitiesPerSecond.median >= 5000),
                            ("mqtt_bridge_idle_rss_mib <= 8", result.idleRSSMiB <= 8)] where !met {
            print("  goal not met: \(name)")
        }
    } catch {
        print("MQTT figures skipped: \(error)")
    }
}
