import Foundation
import NookConfig
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
        ] {
            #expect(checkError({ try Self.config("[icons]\n\(text)\n") }) { $0.contains(said) && $0.hasPrefix("http.toml:2") }, "\(text)")
        }
    }

    static func answer(_ text: String, ended: Bool = true, limit: Int = 100) throws(HTTPSGet.Failure) -> HTTPSGet.Answer? {
        try HTTPAnswerReading.answer(in: Array(text.utf8), ended: ended, bodyLimit: limit)
    }

    @Test func m3_anAnswerIsReadByItsLengthItsChunksOrToItsEndAndWithinBounds() throws {
        let sized = try #require(try Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: image/png\r\n\r\nabcdef", ended: false))
        #expect(sized.status == 200 && sized.body == Array("abc".utf8) && sized.contentType == "image/png")
        #expect(try Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", ended: false) == nil, "more to come")
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n"
        #expect(try Self.answer(chunked)?.body == Array("abc0123456789".utf8))
        #expect(try Self.answer(String(chunked.dropLast(7)), ended: false) == nil, "the last chunk has not come")
        #expect(try Self.answer("HTTP/1.0 404 Not Found\r\n\r\nnothing")?.status == 404)
        #expect(try Self.answer("HTTP/1.0 200 OK\r\n\r\nto the end", ended: false) == nil)
        #expect(try Self.answer("HTTP/1.0 200 OK\r\n\r\nto the end")?.body == Array("to the end".utf8))
        for (text, said, ended) in [
            ("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n", "the answer is 101 bytes; an icon may have at most 100", false),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", "closed the connection after 2 of 5 bytes", true),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length is not a number", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a chunk's size is not hexadecimal", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n", "larger than 100 bytes", false),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab", "inside a chunked body", true),
            ("SSH-2.0-OpenSSH\r\n\r\n", "is not HTTP/1.x", false),
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
        var png = IconSourceServer.png
        #expect(try FetchedIcon(checking: png, limit: 1 << 16).kind == .png)
        png.replaceSubrange(16..<20, with: [0, 0, 0x08, 0])  // 2048 pixels wide
        #expect(checkError({ try FetchedIcon(checking: png, limit: 1 << 16) }) { $0 == "is 2048x1 pixels; nookd draws icons of at most 1024x1024" })
        #expect(checkError({ try FetchedIcon(checking: Array(gif.prefix(20)), limit: 1 << 16) }) { $0.hasPrefix("is a GIF that cannot be drawn") })
        #expect(checkError({ try FetchedIcon(checking: [0xFF, 0xD8, 0xFF, 0xE0, 0, 16], limit: 1 << 16) }) { $0.hasPrefix("is a JPEG, which nookd does not draw") })
        #expect(checkError({ try FetchedIcon(checking: Array("{\"error\":\"no\"}\n".utf8), limit: 1 << 16) }) {
            $0 == "is neither a PNG nor a GIF (it begins '{\"error\":\"no\"}.')"
        })
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
}
