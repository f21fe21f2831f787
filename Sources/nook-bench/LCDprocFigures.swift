#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookLogging
import NookActivities
import NookDisplay
import NookLCDproc
import NookProtocol
import NookRender
import NookSystem

/// The LCDproc server's figures (E8), in-process.
enum LCDprocFigures {
    /// From a `widget_set` line reaching the model to the mock display presenting the glance
    /// that shows it: LCDd's parser and command, composition, the `glance` request encoded and
    /// decoded as on the socket, the home redrawn by pango and presented. The two socket hops
    /// (loopback TCP in, nookd's Unix socket out, each well under 0.1 ms) are not in it.
    static func widgetSetToFrameP99() async -> Double {
        let clock = NookSystemClock()
        let presented = FirstFrameClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock, keepFrames: 0) { _ in presented.mark() }
        let screen = NookScreen(display: display, clock: clock)
        await screen.showHome()
        let model = LCDServerModel(grid: LCDGrid(width: 40, height: 4))
        let client = model.connect()
        for line in ["hello", "screen_add C", "widget_add C t title", "widget_set C t {CPU LOAD}", "widget_add C s string",
                     "widget_add C b hbar", "widget_add C u string", "widget_set C u 1 3 {Usr  6.0% Nice  0.0% Idle 88.0%}"] {
            model.receive(Array(line.utf8), from: client)
        }
        model.advance(toFrame: 1)
        var samples: [Double] = []
        for index in 0..<300 {
            try? await Task.sleep(for: .milliseconds(20))   // an idle display, as between two client updates
            presented.reset()
            let start = ContinuousClock.now
            model.receive(Array("widget_set C s 1 2 {CPU \(index % 100).0%}".utf8), from: client)
            model.receive(Array("widget_set C b 1 4 \(index % 200)".utf8), from: client)
            _ = model.takeOutput()
            guard let glance = model.glance() else { return .nan }
            let line = Request(id: .number(2), operation: .glance(glance)).encoded()
            guard case .success(let request) = Request.decode(Array(line.utf8)), case .glance(let decoded?) = request.operation else { return .nan }
            await screen.setHome(.glance(decoded))
            await presented.wait()
            samples.append((presented.at! - start).nookSeconds * 1000)
        }
        samples.sort()
        if getenv("NOOK_BENCH_VERBOSE") != nil { print("widget_set-to-frame samples (ms):", samples.map { (($0 * 100).rounded() / 100) }) }
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }

    /// `widget_set` lines a client pipelines over TCP that nook-lcdproc's server answers per
    /// second, while in the same process cards slide in and out on a 1280x400 mock display
    /// (the CPU the renderer takes is taken from the server, as on a board).
    static func clientUpdatesPerSecond() async throws -> Double {
        var options = LCDServer.Options()
        options.bind = LCDBindAddress(host: "127.0.0.1", port: 0)
        options.maximumBacklogBytes = 64 << 20
        let server = try LCDServer(options: options, sender: nil, logger: Logger(label: "bench", factory: { _ in DiscardingLogHandler() }))
        let port = server.port
        let box = UncheckedBox(server)
        Thread { try? box.value.run() }.start()
        defer { server.stop() }

        // Cards animating meanwhile.
        let clock = NookSystemClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock, keepFrames: 0)
        let screen = NookScreen(display: display, clock: clock)
        let arbiter = NookSurfaceArbiter(foreground: "bench", clock: clock)
        let queue = NookActivityQueue(clock: clock)
        await queue.bind(to: arbiter)
        let feeder = Task { await screen.run(queue.events(where: NookScreen.draws)) }
        let cards = Task {
            var index = 0
            while !Task.isCancelled {
                if await queue.pending.count < 4 {
                    await queue.enqueue(NookActivity(title: "Card \(index)", subtitle: "sliding", systemImage: "bell", dwell: .milliseconds(50)))
                    index += 1
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { cards.cancel(); feeder.cancel() }

        let connection = FileDescriptor(owning: try System.socket(AF_INET, SOCK_STREAM, flags: SOCK_CLOEXEC.rawValue), name: "LCDproc client")
        defer { withExtendedLifetime(connection) {} }
        let fd = connection.rawValue
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        guard withUnsafePointer(to: &address, { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { to in try? System.connect(fd, to, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }) != nil else {
            throw BenchError("cannot connect to the LCDproc server")
        }
        let setup = Array("hello\nscreen_add C\nwidget_add C s string\nwidget_add C b hbar\n".utf8)
        let count = 100_000
        var burst: [UInt8] = []
        for index in 0..<count { burst += Array("widget_set C \(index % 2 == 0 ? "s 1 2 {CPU \(index % 100)%}" : "b 1 3 \(index % 200)")\n".utf8) }
        try setup.withUnsafeBytes { bytes in Result { () throws(SystemCallError) in try connection.writeAll(bytes) } }.get()
        // Reader: counts answers until every widget_set has one.
        let expected = 4 + count
        let reader = UncheckedBox(fd)
        let start = ContinuousClock.now
        let payload = burst
        let writer = Thread {
            var sent = 0
            payload.withUnsafeBytes { bytes in
                while sent < bytes.count {
                    guard let result = try? System.send(reader.value, bytes.baseAddress! + sent, bytes.count - sent, flags: Int32(MSG_NOSIGNAL)),
                          result > 0 else { return }
                    sent += result
                }
            }
        }
        writer.start()
        var lines = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while lines < expected {
            guard let got = try? System.read(fd, &buffer, buffer.count), got > 0 else { break }
            for byte in buffer[..<got] where byte == 0x0A { lines += 1 }
        }
        let seconds = (ContinuousClock.now - start).nookSeconds
        return Double(count) / seconds
    }
}
