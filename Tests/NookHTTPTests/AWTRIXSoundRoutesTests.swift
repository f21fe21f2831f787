import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M1 and B4 over HTTP: AWTRIX's `/api/sound` and `/api/rtttl` through the built nook-http and a
/// real nookd playing into alsa-lib's `file` PCM. A sound plays and is AWTRIX's `OK`; a name Nook
/// has no chime for is refused naming `sound` (never a 404 on the route); in quiet hours a melody is not played,
/// and the 501 says which rule silenced it.
@Suite("M1 B4 AWTRIX's sound routes over HTTP", .serialized, .ownThreads)
struct AWTRIXSoundRoutesTests {
    let token = "nook_alice-awtrix-sound-token"

    @Test func m1_b4_b3_apiSoundPlaysAnUnknownNameIsSaidAndInQuietHoursAPIRTTTLIsSilencedSayingWhy() throws {
        let directory = NSTemporaryDirectory() + "nook-http-awtrix-sound-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (tokens, capture) = (directory + "/tokens", directory + "/played.raw")
        try "alice read,publish sha256:\(sha256Hex(token))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n",
                                      nookdConfig: "[sound]\noutput = \"alsa\"\ndevice = \"file:FILE=\(capture),FORMAT=raw\"\n")
        func sound() throws -> StatusAnswer.Sound? {
            try StatusAnswer(json: NookClient(path: service.socket).request(Request(id: .number(1), operation: .status))).sound
        }

        let played = try curl(as: token, "POST", service.url + "/api/sound", #"{"sound": "doorbell"}"#)
        #expect(played.status == 200 && played.text == "OK", "\(played)")
        #expect(try Waiting.until(seconds: 10) { try sound()?.played == 1 }, "the doorbell played")
        let samples = ((try? Data(contentsOf: URL(fileURLWithPath: capture))) ?? Data()).count / 2
        // The doorbell's two notes (a quarter and a half at 100 bpm) at 48 kHz: 1.8 s of samples.
        #expect(samples == 48_000 * 18 / 10, "\(samples) samples")

        let unknown = try curl(as: token, "POST", service.url + "/api/sound", "gong")
        #expect(unknown.status == 422 && unknown.text.contains("is not a chime Nook has ('gong'"), "\(unknown)")

        _ = try NookClient(path: service.socket).request(Request(id: .number(2), operation: .quiet(.on)))
        let quiet = try curl(as: token, "POST", service.url + "/api/rtttl", "two short:d=4,o=5,b=100:16e6,16e6")
        let error = try JSONValue.parse(Array(quiet.text.utf8))["error"]
        #expect(quiet.status == 501 && error?["code"]?.text == "not_done", "\(quiet)")
        #expect(error?["message"]?.text == "not done: rtttl: not played: silenced (quiet hours)", "\(quiet)")
        #expect(try sound()?.silenced == 1 && sound()?.played == 1)
    }
}
