import Foundation
import NookConfig
import NookProtocol
import NookTestSupport
import Testing
@testable import NookHTTP

/// The icon fetcher's parts (M3): `[icons]` read with its errors naming the key, an HTTP answer
/// read within bounds however the server frames it, what a fetched body must be, and the cache's
/// bounds.
@Suite("M3 the icon fetcher's parts")
struct IconFetchPartsTests {
    static func config(_ text: String) throws -> HTTPConfig { try HTTPConfig(ConfigDocument(parsing: text, source: "http.toml")) }

    @Test func m3_theIconsTableIsOffByDefaultAndItsErrorsNameTheKey() throws {
        #expect(try Self.config("").icons == IconSourceSettings())
        #expect(IconSourceSettings().source == nil && IconSourceSettings().directory == "/var/cache/nook-http/icons")
        let lametric = try Self.config("[icons]\nsource = \"https://developer.lametric.com/content/apps/icon_thumbs/{id}\"\nmax_count = 50\n")
        let source = try #require(lametric.icons.source)
        #expect(source.host == "developer.lametric.com" && source.port == 443 && lametric.icons.maximumCount == 50)
        #expect(source.path(for: "1234") == "/content/apps/icon_thumbs/1234")
        #expect(source.url(for: "1234") == "https://developer.lametric.com/content/apps/icon_thumbs/1234")
        let local = try #require(try Self.config("[icons]\nsource = \"https://[::1]:8443/i?id={id}&s={id}\"\n").icons.source)
        #expect(local.host == "::1" && local.port == 8443 && local.path(for: "7") == "/i?id=7&s=7")
        for (text, said) in [
            ("source = \"http://example.org/{id}\"", "icons.source: must be an https:// URL"),
            ("source = \"https://example.org/icons\"", "icons.source: must hold {id}"),
            ("source = \"https://example.org:0/{id}\"", "icons.source: has a port that is not 1 to 65535"),
            ("source = \"https://user:pw@example.org/{id}\"", "icons.source: must not carry a user or password"),
            ("source = \"https://{id}.example.org/\"", "icons.source: must name a host"),
            ("source = \"https://example.org/a b/{id}\"", "icons.source: must be a URL without spaces"),
            ("directory = \"cache\"", "icons.directory: must be an absolute path"),
            ("max_count = 0", "icons.max_count"), ("max_bytes = 10", "icons.max_bytes"), ("sourse = \"x\"", "icons.sourse"),
            ("timeout_s = 0", "icons.timeout_s"),
        ] {
            #expect(checkError({ try Self.config("[icons]\n\(text)\n") }) { $0.contains(said) && $0.hasPrefix("http.toml:2") }, "\(text)")
        }
    }

    /// The answer read from `text` given whole, and again a byte at a time: the same either way.
    static func answer(_ text: String, ended: Bool = true, limit: Int = 100) throws(HTTPSGet.Failure) -> HTTPSGet.Answer? {
        func read(_ pieces: [[UInt8]]) throws(HTTPSGet.Failure) -> HTTPSGet.Answer? {
            var reader = HTTPAnswerReader(bodyLimit: limit)
            for piece in pieces { if let answer = try reader.take(piece) { return answer } }
            return ended ? try reader.ended() : nil
        }
        let bytes = Array(text.utf8)
        let whole = try read([bytes])
        #expect(try read(bytes.map { [$0] }) == whole, "byte by byte: \(text.prefix(60))")
        return whole
    }

    @Test func m3_anAnswerIsReadByItsLengthItsChunksOrToItsEndAndWithinBounds() throws {
        let sized = try #require(try Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: image/png\r\n\r\nabcdef", ended: false))
        #expect(sized.status == 200 && sized.body == Array("abc".utf8) && sized.reason == "OK")
        #expect(try Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", ended: false) == nil, "more to come")
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n"
        #expect(try Self.answer(chunked)?.body == Array("abc0123456789".utf8))
        #expect(try Self.answer(String(chunked.dropLast(7)), ended: false) == nil, "the last chunk has not come")
        #expect(try Self.answer("HTTP/1.0 404 Not Found\r\n\r\nnothing")?.status == 404)
        #expect(try Self.answer("HTTP/1.0 200 OK\r\n\r\nto the end", ended: false) == nil)
        #expect(try Self.answer("HTTP/1.0 200 OK\r\n\r\nto the end")?.body == Array("to the end".utf8))
        // A 1xx head before the answer is skipped.
        #expect(try Self.answer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", ended: false)?.body == Array("ok".utf8))
        // A reason phrase is the server's words: never a line or an escape of the log's.
        #expect(try Self.answer("HTTP/1.1 404 Not\u{1B}[31m found\nfetched icon 1\r\n\r\n")?.reason == "Not\\u{1b}[31m found\\u{a}fetched icon 1")
        for (text, said, ended) in [
            ("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n", "the answer is 101 bytes; an icon may have at most 100", false),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", "closed the connection after 2 of 5 bytes", true),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length is not a number", false),
            ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "2 different Content-Length headers", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a chunk's size is not hexadecimal", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n", "larger than 100 bytes", false),
            // Sizes that would overflow a sum of Ints once crashed nook-http.
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nA\r\n7fffffffffffffff\r\nAB\r\n0\r\n\r\n", "larger than 100 bytes", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", "a chunk's size is not hexadecimal", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab", "inside a chunked body", true),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX0\r\n\r\n", "a chunk is longer than its size says", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+2\r\nab\r\n0\r\n\r\n", "a chunk's size is not hexadecimal", false),
            ("HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nab", "Content-Length is not a number", false),
            (String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 9) + "HTTP/1.1 200 OK\r\n\r\n", "more than 8 interim (1xx) answers", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 1100), "size line is longer than 1024", false),
            ("SSH-2.0-OpenSSH\r\n\r\n", "is not HTTP/1.x", false),
            ("HTTP/1.1 200 OK\r\n", "before the answer's head was whole", true),
            ("HTTP/1.0 200 OK\r\n\r\n" + String(repeating: "x", count: 101), "larger than 100 bytes", true),
            ("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 1000), "head is larger than 16384", false),
        ] {
            #expect(checkError({ try Self.answer(text, ended: ended) as Any }) { $0.contains(said) }, "\(text.prefix(60))")
        }
    }

    @Test func m3_aFetchedBodyIsAPNGOrAGIFNookdDraws() throws {
        let gif = TestGIF.encode(width: 8, height: 4, palette: [0xFF0000], frames: [.init(indices: [UInt8](repeating: 0, count: 32), width: 8, height: 4)])
        let icon = try FetchedIcon(checking: gif, limit: 1 << 16)
        #expect(icon.kind == .gif && icon.width == 8 && icon.height == 4 && icon.frames == 1)
        #expect(try FetchedIcon(checking: IconSourceServer.png, limit: 1 << 16).kind == .png)
        #expect(checkError({ try FetchedIcon(checking: Self.png(width: 2048, height: 1, rows: 1), limit: 1 << 16) }) {
            $0 == "is 2048x1 pixels; nookd draws icons of at most 1024x1024"
        })
        #expect(checkError({ try FetchedIcon(checking: Array(gif.prefix(20)), limit: 1 << 16) }) { $0.hasPrefix("is a GIF that cannot be drawn") })
        // A PNG whose header is right and whose data is not: nookd would refuse every card with its id.
        let good = IconSourceServer.png
        let brokenFiles: [([UInt8], String)] = [(Array(good.prefix(40)), "it ends inside a chunk"),
                              (good.enumerated().map { $0.offset == 41 ? $0.element ^ 0xFF : $0.element }, "its IDAT chunk's CRC is wrong"),
                              (Array(good.prefix(33)) + [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82], "it has no image data"),
                              (Self.png(width: 16, height: 16, rows: 2), "inflates to 34 bytes, not the 272 its header gives"),
                              (Self.png(width: 2, height: 2, rows: 2, garbage: true), "does not inflate")]
        for (bytes, said) in brokenFiles {
            #expect(checkError({ try FetchedIcon(checking: bytes, limit: 1 << 16) }) { $0.hasPrefix("is a PNG that cannot be drawn") && $0.contains(said) }, "\(said)")
        }
        #expect(try FetchedIcon(checking: Self.png(width: 16, height: 16, rows: 16), limit: 1 << 16).width == 16)
        #expect(checkError({ try FetchedIcon(checking: [0xFF, 0xD8, 0xFF, 0xE0, 0, 16], limit: 1 << 16) }) { $0.hasPrefix("is a JPEG, which nookd does not draw") })
        #expect(checkError({ try FetchedIcon(checking: Array("{\"error\":\"no\"}\n".utf8), limit: 1 << 16) }) {
            $0 == "is neither a PNG nor a GIF (it begins '{\"error\":\"no\"}\\u{a}')"
        })
    }

    /// What libpng (nookd's decoder, through cairo) refuses is refused here too, and what it draws
    /// is taken: a fetched PNG that passed and then failed in nookd would refuse every card with its id.
    @Test func m3_aFetchedPNGIsRefusedWhereNookdsDecoderWouldRefuseIt() {
        func file(_ header: [UInt8], _ chunks: [(String, [UInt8])]) -> [UInt8] { Self.pngFile([("IHDR", header)] + chunks) }
        func ihdr(_ side: UInt8, depth: UInt8 = 8, colour: UInt8 = 0, methods: [UInt8] = [0, 0, 0]) -> [UInt8] {
            [0, 0, 0, side, 0, 0, 0, side, depth, colour] + methods
        }
        // 2x2 at 8 bits: two rows of a filter byte and two samples.
        let grey = Self.stored([0, 7, 7, 0, 7, 7]), indices = Self.stored([0, 0, 1, 0, 1, 0]), palette = ("PLTE", [UInt8](repeating: 9, count: 6))
        let refused: [([UInt8], String)] = [
            (file(ihdr(2), [("IDAT", Self.stored([0, 7, 7, 0, 7, 7, 0, 7])), ("IEND", [])]), "inflates to 8 bytes, not the 6"),
            (file(ihdr(2), [("IDAT", Self.stored([7, 1, 2, 0, 1, 2])), ("IEND", [])]), "a row's filter type is 7, not 0 to 4"),
            (file(ihdr(2, methods: [1, 0, 0]), [("IDAT", grey), ("IEND", [])]), "compression, filter or interlace method (1, 0, 0)"),
            (file(ihdr(2, methods: [0, 0, 2]), [("IDAT", grey), ("IEND", [])]), "compression, filter or interlace method (0, 0, 2)"),
            (file(ihdr(2, colour: 3), [("IDAT", indices), ("IEND", [])]), "a palette's colour type and no PLTE chunk"),
            (file(ihdr(2, colour: 3), [palette, palette, ("IDAT", indices), ("IEND", [])]), "not the one before the image data"),
            (file(ihdr(2, colour: 3), [("PLTE", [1, 2]), ("IDAT", indices), ("IEND", [])]), "PLTE chunk of 2 bytes"),
            (file(ihdr(2), [("ABCD", [1]), ("IDAT", grey), ("IEND", [])]), "a critical chunk 'ABCD' no decoder knows"),
            (file(ihdr(2), [("IDAT", Array(grey.prefix(4))), ("tEXt", Array("a\0b".utf8)), ("IDAT", Array(grey.dropFirst(4))), ("IEND", [])]),
             "its IDAT chunks are not one after another"),
        ]
        for (bytes, said) in refused {
            #expect(checkError({ try FetchedIcon(checking: bytes, limit: 1 << 16) }) { $0.hasPrefix("is a PNG that cannot be drawn") && $0.contains(said) }, "\(said)")
        }
        let drawn: [([UInt8], String)] = [
            (file(ihdr(2, methods: [0, 0, 1]), [("IDAT", Self.stored([0, 7, 0, 7, 0, 7, 7])), ("IEND", [])]), "Adam7, 2x2: rows of 2, 2 and 3 bytes"),
            (file(ihdr(2, colour: 3), [palette, ("tRNS", [0]), ("IDAT", indices), ("IEND", [])]), "a palette"),
            (file(ihdr(2, depth: 16), [("IDAT", Self.stored([0, 7, 7, 7, 7, 0, 7, 7, 7, 7])), ("tEXt", Array("a\0b".utf8)), ("IEND", [])]), "16 bits"),
            (file(ihdr(2), [("IDAT", Array(grey.prefix(3))), ("IDAT", []), ("IDAT", Array(grey.dropFirst(3))), ("IEND", []), ("xtra", [1])]), "split data"),
        ]
        for (bytes, what) in drawn {
            #expect((try? FetchedIcon(checking: bytes, limit: 1 << 16))?.width == 2, "\(what)")
        }
    }

    /// A grey PNG of `width`x`height` whose image data holds `rows` rows (or bytes that are no
    /// zlib stream), its chunks' CRCs right.
    static func png(width: Int, height: Int, rows: Int, garbage: Bool = false) -> [UInt8] {
        let header = withUnsafeBytes(of: UInt32(width).bigEndian, Array.init) + withUnsafeBytes(of: UInt32(height).bigEndian, Array.init) + [8, 0, 0, 0, 0]
        let raw = [UInt8]((0..<rows).flatMap { _ in [0] + [UInt8](repeating: 0x80, count: width) })
        return pngFile([("IHDR", header), ("IDAT", garbage ? [0x78, 0x9C, 0xFF, 0xFF, 0xFF] : Self.stored(raw)), ("IEND", [])])
    }

    /// A PNG of these chunks, each with its length and CRC.
    static func pngFile(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunks.flatMap { type, data in
            let typed = Array(type.utf8) + data
            return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + typed + withUnsafeBytes(of: CRC32.checksum(typed).bigEndian, Array.init)
        }
    }

    /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks, with its Adler-32.
    static func stored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01], rest = bytes[...]
        repeat {
            let block = rest.prefix(65535)
            rest = rest.dropFirst(block.count)
            let length = UInt16(block.count)
            out += [rest.isEmpty ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + block
        } while !rest.isEmpty
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + withUnsafeBytes(of: (b << 16 | a).bigEndian, Array.init)
    }

    @Test func m3_theCacheKeepsItsBoundsRemovingTheOldestOfItsOwnFilesOnly() throws {
        let folder = NSTemporaryDirectory() + "nook-icon-cache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = folder + "/icons"
        let cache = IconCache(directory: directory, maximumCount: 3, maximumBytes: 200)
        try cache.prepare()
        try cache.prepare()  // there already
        try "keep".write(toFile: directory + "/readme.txt", atomically: true, encoding: .utf8)
        let icon = try FetchedIcon(checking: IconSourceServer.png, limit: 1 << 16)  // 70 bytes
        #expect(try cache.store(icon, id: "1").removed.isEmpty)
        #expect(try cache.store(icon, id: "2").removed.isEmpty)
        #expect(try cache.store(icon, id: "3").removed == ["1.png"], "210 bytes are over 200")
        #expect(cache.file(for: "1") == nil && cache.file(for: "3") == directory + "/3.png")
        // A GIF of an id that was a PNG replaces it.
        let gif = try FetchedIcon(checking: TestGIF.encode(width: 1, height: 1, palette: [0], frames: [.init(indices: [0], width: 1, height: 1)]), limit: 1 << 16)
        _ = try cache.store(gif, id: "2")
        #expect(cache.file(for: "2") == directory + "/2.gif")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files == ["2.gif", "3.png", "readme.txt"], "\(files)")
        for name in ["1.png", "123456789.gif"] { #expect(IconCache.isIconName(name)) }
        for name in ["readme.txt", ".1.part", "1.png.x", "a1.png", "1234567890.png", "1.jpg", ".png"] { #expect(!IconCache.isIconName(name), "\(name)") }
    }

    /// A directory nookd must read: one there already is opened to all, and what is no directory is said.
    @Test func m3_theCacheDirectoryIsMadeReadableByNookdAndWhatIsNoDirectoryIsSaid() throws {
        let folder = NSTemporaryDirectory() + "nook-icon-prepare-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder + "/closed", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder + "/closed", 0o700)
        try IconCache(directory: folder + "/closed", maximumCount: 1, maximumBytes: 1 << 16).prepare()
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/closed")[.posixPermissions] as? Int)
        #expect(mode == 0o755, "\(String(mode, radix: 8))")
        try "x".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
        #expect(checkError({ try IconCache(directory: folder + "/file", maximumCount: 1, maximumBytes: 1 << 16).prepare() }) {
            $0 == "\(folder)/file is a regular file, not a directory"
        })
        #expect(checkError({ try IconCache(directory: folder + "/none/icons", maximumCount: 1, maximumBytes: 1 << 16).prepare() }) {
            $0.hasPrefix("'mkdir' failed for \(folder)/none/icons")
        })
    }

    /// A server that trickles its handshake a byte at a time holds the fetcher no longer than the
    /// exchange's limit: the socket is shut down under it and the failure says why.
    @Test(.enabled(if: IconSourceServer.ready, "needs python3"))
    func m3_aTrickledHandshakeEndsAtTheExchangesLimit() throws {
        let folder = NSTemporaryDirectory() + "nook-icon-trickle-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            import select, socket, sys, time
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            print(server.getsockname()[1], flush=True)
            client, _ = server.accept()
            client.recv(4096)
            client.send(b"\\x16\\x03\\x03\\x40\\x00")
            sent = 0
            while sent < 600:
                readable, _, _ = select.select([client], [], [], 0)
                if readable and client.recv(1) == b"":
                    break
                try:
                    client.send(b"\\x02")
                except OSError:
                    break
                sent += 1
                time.sleep(0.2)
            open(sys.argv[1], "w").write(str(sent))
            time.sleep(3600)
            """
        try script.write(toFile: folder + "/trickle.py", atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [folder + "/trickle.py", folder + "/sent"]
        let output = Pipe.closedOnExec()
        server.standardOutput = output
        try server.runAlone()
        defer { kill(server.processIdentifier, SIGKILL); server.waitForExit() }
        let port = try #require(UInt16(output.firstLine(until: Date().addingTimeInterval(TestBounds.seconds(30))).trimmingCharacters(in: .whitespacesAndNewlines)))
        var get = HTTPSGet(client: try HTTPTLSClient())
        // Each byte comes well within a read's timeout: only the exchange's limit ends it.
        (get.exchangeLimit, get.timeout) = (.seconds(1), .seconds(60))
        #expect(checkError({ try get.get(host: "127.0.0.1", port: port, path: "/icons/1", bodyLimit: 1 << 16) }) {
            $0 == "the exchange took longer than 1.0 seconds: nook-http hung up during the TLS handshake"
        })
        // The server saw the connection end while it still had bytes to trickle (600, two minutes' worth).
        #expect(Waiting.until(seconds: 30) { FileManager.default.fileExists(atPath: folder + "/sent") })
        let sent = Int((try? String(contentsOfFile: folder + "/sent", encoding: .utf8)) ?? "") ?? -1
        #expect((0..<600).contains(sent), "bytes trickled before the hang-up: \(sent)")
    }
}
