import NookHTTP
import Testing

/// The request parser as a state machine: bytes in, requests or a precise error out (H1, H4).
@Suite struct HTTPRequestParserTests {
    func items(_ text: String, limits: HTTPParserLimits = HTTPParserLimits(), byteByByte: Bool = false) -> [HTTPParsedItem] {
        items(Array(text.utf8), limits: limits, byteByByte: byteByByte)
    }

    func items(_ bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), byteByByte: Bool = false) -> [HTTPParsedItem] {
        var parser = HTTPRequestParser(limits: limits)
        var found: [HTTPParsedItem] = []
        if byteByByte {
            for byte in bytes {
                parser.append([byte])
                while let item = parser.next() { found.append(item) }
            }
        } else {
            parser.append(bytes)
            while let item = parser.next() { found.append(item) }
        }
        return found
    }

    func error(_ items: [HTTPParsedItem]) -> HTTPAPIError? {
        for item in items { if case .failure(let error) = item { return error } }
        return nil
    }

    func requests(_ items: [HTTPParsedItem]) -> [(HTTPRequest, Bool)] {
        items.compactMap { if case .request(let request, let keepAlive) = $0 { (request, keepAlive) } else { nil } }
    }

    @Test func h1_aGetIsReadWithItsDecodedPathQueryAndHeaders() throws {
        let found = requests(items("GET /api/v1/history?q=caf%C3%A9+au+lait&offset=20 HTTP/1.1\r\nHost: nook\r\nX-Title:  Door bell \r\n\r\n"))
        #expect(found.count == 1)
        let (request, keepAlive) = try #require(found.first)
        #expect(request.method == "GET" && request.path == "/api/v1/history" && keepAlive)
        #expect(request.parameter("q") == "café au lait" && request.parameter("offset") == "20")
        #expect(request.header("x-title") == "Door bell" && request.header("HOST") == "nook")
        #expect(request.body.isEmpty)
    }

    @Test func h1_aPercentEncodedPathIsDecodedAndPlusStaysAPlusThere() throws {
        let request = try #require(requests(items("PUT /door%20bell/a+b HTTP/1.1\r\n\r\n")).first?.0)
        #expect(request.path == "/door bell/a+b")
    }

    @Test func h1_pipelinedRequestsComeOutInOrderWhetherReadWholeOrByteByByte() {
        let text = "POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\n\r\nPOST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nX-Trailer: t\r\n\r\nGET /d HTTP/1.1\r\nConnection: close\r\n\r\n"
        for byteByByte in [false, true] {
            let found = requests(items(text, byteByByte: byteByByte))
            #expect(found.map { $0.0.path } == ["/a", "/b", "/c", "/d"])
            #expect(found.map { String(decoding: $0.0.body, as: UTF8.self) } == ["hello", "", "abcde", ""])
            #expect(found.map { $0.1 } == [true, true, true, false])
        }
    }

    @Test func h1_http10ClosesUnlessItAsksForKeepAlive() {
        let found = requests(items("GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
        #expect(found.map { $0.1 } == [false, true])
    }

    @Test func h1_expectContinueAsksForTheGoAheadBeforeTheBody() {
        var parser = HTTPRequestParser()
        parser.append(Array("POST /x HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n".utf8))
        #expect(parser.next() == .continueExpected)
        #expect(parser.next() == nil)
        parser.append(Array("body".utf8))
        guard case .request(let request, _)? = parser.next() else { Issue.record("no request"); return }
        #expect(request.body == Array("body".utf8))
    }

    @Test func h4_aHeadBlockOverItsBoundIs431EvenBeforeItEnds() {
        let limits = HTTPParserLimits(headerBytes: 1024)
        let long = "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 2000)
        #expect(error(items(long, limits: limits))?.status == 431)
        let many = "GET / HTTP/1.1\r\n" + (0..<10).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        #expect(error(items(many, limits: HTTPParserLimits(headerCount: 5)))?.status == 431)
        #expect(error(items(many, limits: HTTPParserLimits(headerCount: 10))) == nil)
    }

    @Test func h4_aBodyOverItsBoundIs413ByLengthOrByChunks() {
        let limits = HTTPParserLimits(bodyBytes: 10)
        #expect(error(items("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", limits: limits))?.status == 413)
        #expect(error(items("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n", limits: limits))?.status == 413)
        #expect(error(items("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits)) == nil)
    }

    @Test func h4_aChunkSizeTooLargeForTheBodyIs413SayingSoNotThatItIsNotHexadecimal() {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        // Past what fits in 8 digits, past what fits in 64 bits, and a size line of 1000 digits.
        for size in ["FFFFFFFFFFFF", "ffffffffffffffffffffffff", String(repeating: "7", count: 1000)] {
            // Leading zeros do not count: the message shows the digits that do.
            let refusal = error(items(head + String(repeating: "0", count: 20) + size + "\r\nabc"))
            #expect(refusal?.status == 413 && refusal?.code == "body_too_large", "\(size.prefix(30)): \(String(describing: refusal))")
            let message = refusal?.message ?? ""
            #expect(message.contains("a chunk of size 0x\(size.prefix(24))") && message.contains("65536 bytes (http.max_body_bytes)"), "\(message)")
            #expect(!message.contains("hexadecimal") && message.count < 200, "\(message)")
        }
        // Within 8 digits but over the limit: the same answer; a size that is not hexadecimal still says so.
        let over = error(items(head + "10001\r\n"))
        #expect(over?.status == 413 && over?.message.contains("a chunk of size 0x10001") == true, "\(String(describing: over))")
        let bad = error(items(head + "12G4\r\n"))
        #expect(bad?.status == 400 && bad?.message.contains("not a hexadecimal number") == true, "\(String(describing: bad))")
    }

    @Test func h4_requestsBeforeARefusedOneAreKeptAndNothingAfterIsRead() {
        let found = items("GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 999999999\r\n\r\nGET /c HTTP/1.1\r\n\r\n")
        #expect(requests(found).map { $0.0.path } == ["/a"])
        #expect(error(found)?.status == 413)
        #expect(found.count == 2)
    }

    @Test func h1_invalidUTF8IsA400NamingWhereItWas() {
        #expect(error(items("GET /caf%C3 HTTP/1.1\r\n\r\n"))?.message.contains("the path") == true)
        let query = error(items("GET /x?title=%FF HTTP/1.1\r\n\r\n"))
        #expect(query?.status == 400 && query?.field == "title")
        var header = Array("GET / HTTP/1.1\r\nX-Title: ".utf8)
        header += [0xC3, 0x28]
        header += Array("\r\n\r\n".utf8)
        let headerError = error(items(header))
        #expect(headerError?.status == 400 && headerError?.field == "X-Title", "\(String(describing: headerError))")
        #expect(error(items("GET /%zz HTTP/1.1\r\n\r\n"))?.status == 400)
    }

    @Test func h1_malformedFramingIsRefusedWithWhatWasWrong() {
        #expect(error(items("GET / HTTP/2.0\r\n\r\n"))?.status == 505)
        #expect(error(items("GET /\r\n\r\n"))?.status == 400)
        #expect(error(items("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"))?.field == "Content-Length")
        #expect(error(items("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"))?.field == "Content-Length")
        #expect(error(items("POST / HTTP/1.1\r\nContent-Length: -3\r\n\r\n"))?.field == "Content-Length")
        #expect(error(items("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"))?.status == 501)
        #expect(error(items("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"))?.field == "Transfer-Encoding")
        #expect(error(items("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"))?.status == 400)
        #expect(error(items("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n"))?.status == 400)
        #expect(error(items("GET / HTTP/1.1\r\nExpect: magic\r\n\r\n"))?.status == 417)
        // A chunk size is read as a proxy in front reads it: no space between its digits, and
        // leading zeros do not count against its length.
        #expect(error(items("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1 8\r\n"))?.field == "Transfer-Encoding")
        let padded = requests(items("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n000000003 ;x=1\r\nabc\r\n0\r\n\r\n"))
        #expect(padded.map { String(decoding: $0.0.body, as: UTF8.self) } == ["abc"])
    }

    @Test func h4_aHeadSentAByteAtATimeIsHeldAsPartialUntilItEnds() {
        var parser = HTTPRequestParser()
        #expect(!parser.hasPartialRequest)
        for byte in "GET / HTTP/1.1\r\nHost: localhost\r\n".utf8 {
            parser.append([byte])
            #expect(parser.next() == nil)
            #expect(parser.hasPartialRequest)
        }
        parser.append(Array("\r\n".utf8))
        #expect(requests([parser.next()].compactMap { $0 }).count == 1)
        #expect(!parser.hasPartialRequest)
    }

    /// RFC 9112 §3.2: one Host; two (or a list in one) leave in doubt what the request is for.
    @Test func h4_twoHostHeaderFieldsOrTwoAuthoritiesInOneAre400() {
        for head in ["Host: localhost\r\nHost: evil.example\r\n", "Host: localhost\r\nhost: localhost\r\n", "Host: localhost, evil.example\r\n"] {
            let refused = error(items("GET /api/v1/status HTTP/1.1\r\n\(head)\r\n"))
            #expect(refused?.status == 400 && refused?.field == "Host", "\(head.debugDescription): \(String(describing: refused))")
        }
        #expect(requests(items("GET /api/v1/status HTTP/1.1\r\nHost: localhost:8722\r\n\r\n")).count == 1)
    }
}
