import NookActivities
import NookConfig
import NookDaemon
import NookHTTP
import NookLCDproc
import NookProtocol

/// The inputs nookd takes from outside, as fuzz targets: each must come back for any
/// bytes, with a value or an error, never a crash or a hang, and keep the properties checked
/// here. `nook-fuzz` runs them under libFuzzer; the tests replay the committed corpora.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// One request line as the socket server hands it to the decoder and validator (C1, C3).
    case `protocol`
    /// A config file as `nookd --config` reads and validates it (N1).
    case config
    /// Bytes from an LCDproc client as nook-lcdproc reads them (E8): framing, LCDd's
    /// tokenizer, every command, the screen list and the composed glance. A line that starts
    /// with byte 1 is a key press instead (the rest is the key's name), so the server menu is
    /// driven too; an input of even length runs it in two-key mode.
    case lcdproc
    /// Bytes from an HTTP client as nook-http's request parser reads them (H4): fed whole and
    /// in pieces split where the input's first byte says, the two must give the same requests;
    /// every refusal has a 4xx/5xx status and a message; every request is within the bounds.
    case http
    /// An RTTTL string as a sender gives it (B2): a melody within the bounds, or an error
    /// naming a character of the string.
    case rtttl
    /// A WAV file from the sound directory (B2): samples within the bounds, or an error.
    case wav

    public func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .protocol: Self.request(bytes)
        case .config: Self.configFile(bytes)
        case .lcdproc: Self.lcdprocSession(bytes)
        case .http: Self.httpRequests(bytes)
        case .rtttl: Self.rtttlString(bytes)
        case .wav: Self.wavFile(bytes)
        }
    }

    public func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { run($0) }
    }

    // A broken property stops the process on purpose: that is how a fuzz target reports a
    // finding to libFuzzer. This module is linked only into nook-fuzz and the corpus tests.
    private static func request(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch Request.decode(bytes) {
        case .success(let request):
            // What was accepted encodes to a line that decodes to the same request.
            let line = request.encoded()
            guard case .success(let again) = Request.decode(Array(line.utf8)) else {
                fatalError("a decoded request re-encodes to a line the decoder refuses: \(line)")
            }
            guard again == request else { fatalError("a request changed on its way through encode and decode: \(line)") }
        case .failure(let failure):
            guard !failure.error.message.isEmpty else { fatalError("an error without a message for \(Array(bytes.prefix(64)))") }
        }
        // nookctl's side reads the same kinds of line.
        _ = try? ResponseLine.decode(bytes)
    }

    private static func lcdprocSession(_ bytes: UnsafeBufferPointer<UInt8>) {
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 4))
        model.menuSettings.twoKeys = bytes.count % 2 == 0
        model.menuSettings.timeoutFrames = 40
        let client = model.connect()
        model.receive(Array("hello".utf8), from: client)
        var framer = LCDLineFramer(maximumLineBytes: 1024)
        var items: [LCDLineFramer.Item] = []
        framer.append(bytes, into: &items)
        var frame = 0
        for case .line(let line) in items {
            if line.first == 1 {
                model.press(key: String(decoding: line.dropFirst(), as: UTF8.self))
            } else {
                model.receive(line, from: client)
            }
            _ = model.takeOutput()
            frame += 3
            model.advance(toFrame: frame)
            // What is shown is always a glance nookd accepts, and every card is a valid activity.
            if let glance = model.glance() {
                do { try glance.validate() } catch { fatalError("an invalid glance: \(error)") }
            }
            for card in model.takeCards() {
                do { try card.validate() } catch { fatalError("an invalid card: \(error)") }
            }
        }
        model.disconnect(client)
        guard model.screenCount == 0 else { fatalError("a disconnected client's screens stayed listed") }
        guard !model.menuIsOpen else { fatalError("the menu stayed open with its only client gone") }
    }

    private static func httpRequests(_ bytes: UnsafeBufferPointer<UInt8>) {
        let limits = HTTPParserLimits(headerBytes: 2048, headerCount: 16, bodyBytes: 4096)
        func parse(step: Int) -> [HTTPParsedItem] {
            var parser = HTTPRequestParser(limits: limits)
            var items: [HTTPParsedItem] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + step)
                parser.append(UnsafeBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
                while let item = parser.next() { items.append(item) }
            }
            return items
        }
        let whole = parse(step: max(1, bytes.count))
        let pieces = parse(step: Int(bytes.first ?? 1) % 7 + 1)
        // A `100 Continue` cue depends on where the bytes were split; nothing else may.
        let kept = { (items: [HTTPParsedItem]) in items.filter { $0 != .continueExpected } }
        guard kept(whole) == kept(pieces) else { fatalError("the parser read the same bytes differently when they came in pieces") }
        for item in whole {
            switch item {
            case .failure(let error):
                guard error.status >= 400, error.status < 600, !error.message.isEmpty else { fatalError("a refusal without a status or message: \(error)") }
            case .request(let request, _):
                guard request.body.count <= limits.bodyBytes, request.headers.count <= limits.headerCount else { fatalError("a request past the bounds") }
                guard request.path.hasPrefix("/") || request.path == "*" else { fatalError("a path not starting with /: \(request.path)") }
            case .continueExpected:
                break
            }
        }
    }

    private static func configFile(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let document = try? ConfigDocument(parsing: text, source: "fuzz.toml") else { return }
        // Theme files named by the input resolve under a directory that does not exist.
        do {
            _ = try DaemonConfig(reading: ConfigReader(document), directory: "/nonexistent-nook-fuzz")
        } catch {
            guard !error.message.isEmpty else { fatalError("a config error without a message") }
        }
    }
}
