import NookActivities
import NookHTTP
import NookProtocol
import Testing

@Suite struct GotifyMessageTests {
    func post(_ body: [UInt8], contentType: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/message", headers: [(name: "Content-Type", value: contentType)], body: body)
    }

    @Test func h2_theJSONFormGivesTitleMessagePriorityAndMarkdown() throws {
        let body = #"{"title": "Backup", "message": "**failed** on pve1", "priority": 9, "extras": {"client::display": {"contentType": "text/markdown"}}}"#
        let message = try GotifyMessage.decode(post(Array(body.utf8), contentType: "application/json")).get()
        #expect(message == GotifyMessage(title: "Backup", message: "**failed** on pve1", priority: 9, markdown: true))
        let card = GotifyMapping.card(for: message, id: NookActivityID(), module: "home")
        #expect(card.activity.title == "Backup")
        #expect(card.activity.subtitle == "failed on pve1")
        #expect(card.activity.priority == .high)
        #expect(card.activity.tint == .named(.orange))
        #expect(card.activity.dwell == .seconds(10))
        #expect(card.module == "home")
    }

    @Test func h2_curlsMultipartFormIsRead() throws {
        // What `curl -F "title=my title" -F "message=my message" -F "priority=5"` sends.
        let boundary = "------------------------d74496d66958873e"
        let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nmy title\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nmy message\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"priority\"\r\n\r\n5\r\n--\(boundary)--\r\n"
        let message = try GotifyMessage.decode(post(Array(body.utf8), contentType: "multipart/form-data; boundary=\(boundary)")).get()
        #expect(message == GotifyMessage(title: "my title", message: "my message", priority: 5))
    }

    @Test func h2_anURLEncodedFormIsRead() throws {
        let message = try GotifyMessage.decode(post(Array("title=Hi+there&message=caf%C3%A9%20open&priority=2".utf8),
                                                    contentType: "application/x-www-form-urlencoded")).get()
        #expect(message == GotifyMessage(title: "Hi there", message: "café open", priority: 2))
    }

    @Test func h2_aPriorityOutsideZeroToTenIsReadAsTheNearestEndWithANote() throws {
        let message = try GotifyMessage.decode(post(Array(#"{"message": "m", "priority": 42}"#.utf8), contentType: "application/json")).get()
        #expect(message.priority == 10)
        #expect(message.notes == ["priority 42 read as 10"])
        let low = try GotifyMessage.decode(post(Array(#"{"message": "m", "priority": -3}"#.utf8), contentType: "application/json")).get()
        #expect(low.priority == 0)
    }

    @Test func h2_badInputIsAnErrorNamingTheField() {
        func field(_ body: String, _ type: String = "application/json") -> String? {
            if case .failure(let error) = GotifyMessage.decode(post(Array(body.utf8), contentType: type)) { return error.field }
            return nil
        }
        #expect(field(#"{"title": "no message"}"#) == "message")
        #expect(field(#"{"message": "   "}"#) == "message")
        #expect(field(#"{"message": "m", "priority": "high"}"#) == "priority")
        #expect(field(#"{"message": "m", "priority": 2.5}"#) == "priority")
        #expect(field(#"{"message": 7}"#) == "message")
        #expect(field(#"{"message": "m", "extras": []}"#) == "extras")
        #expect(field("[1]") == "body")
        #expect(field("{nope") == "body")
        #expect(field("message=m&priority=x", "application/x-www-form-urlencoded") == "priority")
        #expect(field("message=%ZZ", "application/x-www-form-urlencoded") == "body")
        #expect(field("x", "multipart/form-data") == "body")
        let file = "--b\r\nContent-Disposition: form-data; name=\"message\"; filename=\"a.txt\"\r\n\r\nhi\r\n--b--\r\n"
        #expect(field(file, "multipart/form-data; boundary=b") == "body")
        let unterminated = "--b\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nhi"
        #expect(field(unterminated, "multipart/form-data; boundary=b") == "body")
    }

    @Test func h2_theAnswerIsGotifysMessageWithANumberID() {
        let id = NookActivityID()
        let answer = GotifyMapping.answer(for: GotifyMessage(title: "T", message: "M", priority: 5), number: 7,
                                          delivered: DeliveredCard(id: id, updated: false), date: "2026-11-26T02:30:00Z", notes: [])
        #expect(answer["id"]?.numberValue == 7)
        #expect(answer["appid"]?.numberValue == 1)
        #expect(answer["message"]?.text == "M")
        #expect(answer["priority"]?.numberValue == 5)
        #expect(answer["date"]?.text == "2026-11-26T02:30:00Z")
        #expect(answer["extras"]?["nook::card"]?["activity"]?.text == id.description)
    }
}

@Suite struct AWTRIXNotifyTests {
    @Test func h2_textColourDurationHoldAndProgressMakeTheCard() throws {
        let body = ##"{"text": "Hello, AWTRIX 3!", "color": "#FF0000", "duration": 12, "hold": true, "progress": 40, "rainbow": true, "rtttl": "x"}"##
        let notification = try AWTRIXNotification.decode(Array(body.utf8)).get()
        let card = AWTRIXMapping.card(for: notification, id: NookActivityID(), module: nil)
        #expect(card.activity.title == "Hello, AWTRIX 3!")
        #expect(card.activity.tint == .rgb(red: 255, green: 0, blue: 0))
        #expect(card.activity.dwell == .seconds(12))
        #expect(card.activity.presentation == .blocker(timeout: nil))
        #expect(card.activity.progress == 0.4)
        #expect(card.activity.priority == .normal)
        // Not drawn: said. A melody that is no RTTTL string: said naming its fault, the card kept (B4).
        #expect(card.notes.contains { $0.contains("rainbow") } && card.activity.sound == nil)
        #expect(card.notes.contains { $0.hasPrefix("rtttl not played: RTTTL: no ':' after the name") }, "\(card.notes)")
    }

    @Test func h2_progressOutsideAWTRIXsRangeIsRefusedNamingIt() throws {
        func decoded(_ progress: String) -> Result<AWTRIXNotification, HTTPAPIError> {
            AWTRIXNotification.decode(Array(#"{"text": "Copying", "progress": \#(progress)}"#.utf8))
        }
        for value in ["101", "150", "-5", "-0.5", "1e300"] {
            guard case .failure(let error) = decoded(value) else { Issue.record("progress \(value) was accepted"); continue }
            #expect(error.status == 422 && error.field == "progress" && error.message.contains("0 to 100"), "\(value): \(error)")
        }
        #expect(try decoded("100").get().progress == 100)
        #expect(try decoded("0").get().progress == 0)
        #expect(try decoded("-1").get().progress == nil, "AWTRIX's default: no bar")
    }

    @Test func h2_colouredFragmentsJoinAndTheFirstColourTints() throws {
        let body = #"{"text": [{"t": "CPU ", "c": "00FF00"}, {"t": "42%", "c": "FF0000"}], "icon": "thermometer", "color": [0, 0, 255]}"#
        let card = AWTRIXMapping.card(for: try AWTRIXNotification.decode(Array(body.utf8)).get(), id: NookActivityID(), module: nil)
        #expect(card.activity.title == "CPU 42%")
        #expect(card.activity.tint == .rgb(red: 0, green: 0, blue: 255))
        #expect(card.activity.systemImage == "thermometer")
        let fragmentsOnly = #"{"text": [{"t": "a", "c": "00FF00"}]}"#
        #expect(AWTRIXMapping.card(for: try AWTRIXNotification.decode(Array(fragmentsOnly.utf8)).get(), id: NookActivityID(), module: nil)
            .activity.tint == .rgb(red: 0, green: 255, blue: 0))
    }

    @Test func h2_anAWTRIXIconNumberIsNotAPathAndFallsBackToBell() throws {
        for icon in ["1234", "/etc/passwd", "../x.png", "x.png"] {
            let body = #"{"text": "t", "icon": ""# + icon + #""}"#
            let card = AWTRIXMapping.card(for: try AWTRIXNotification.decode(Array(body.utf8)).get(), id: NookActivityID(), module: nil)
            // A number is nookd's to look up as a file, the bell its fallback (M3); a path never is.
            let (drawn, fallback): (String, String?) = icon == "1234" ? ("1234", "bell") : ("bell", nil)
            #expect(card.activity.systemImage == drawn && card.activity.iconFallback == fallback, "\(icon)")
        }
    }

    @Test func h2_badInputIsAnErrorNamingTheField() {
        func field(_ body: String) -> String? {
            if case .failure(let error) = AWTRIXNotification.decode(Array(body.utf8)) { return error.field }
            return nil
        }
        #expect(field(##"{"color": "#FF0000"}"##) == "text")
        #expect(field(#"{"text": 5}"#) == "text")
        #expect(field(#"{"text": [{"c": "FF0000"}]}"#) == "text[0].t")
        #expect(field(#"{"text": "t", "color": "purple-ish"}"#) == "color")
        #expect(field(#"{"text": "t", "color": [300, 0, 0]}"#) == "color")
        #expect(field(#"{"text": "t", "duration": -1}"#) == "duration")
        #expect(field(#"{"text": "t", "hold": "yes"}"#) == "hold")
        #expect(field("nope") == "body")
    }
}
