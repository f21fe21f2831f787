import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

@Suite("Z1 quiet hours through nookd and nookctl", .serialized, .ownThreads)
struct QuietEndToEndTests {
    @Test func z1_quietFromTheScheduleHoldsNormalEndsLowShowsHighAndOffReleases() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[quiet]\nschedule = [\"daily 00:00-24:00\"]\nsuppress = [\"low\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let status = try nookctl(["quiet", "status"], socket: daemon.socket)
        #expect(status.status == 0 && status.output.hasPrefix("quiet (schedule) until "), "\(status)")
        let json = try nookctl(["quiet", "status", "--json"], socket: daemon.socket)
        #expect(json.output.contains("\"quiet\":true") && json.output.contains("\"minimum\":\"high\""), "\(json)")

        // The doorbell's 0.3 s on the glass is told by its events, which a loaded machine's
        // polls of the status can miss.
        let watcher = try daemon.watcher()
        let mail = try nookctl(["enqueue", "--title", "Mail", "--dwell", "0.3"], socket: daemon.socket)
        #expect(mail.status == 0)
        let weather = try nookctl(["enqueue", "--title", "Weather", "--priority", "low", "--wait"], socket: daemon.socket)
        #expect(weather.status == 15, "a suppressed low ends at once (rejected): \(weather)")
        try eventually("the suppression in the log") { daemon.log.contains("ended 1 pending activities as suppressed") }
        let doorbell = try nookctl(["enqueue", "--title", "Doorbell", "--priority", "high", "--dwell", "0.3"], socket: daemon.socket)
        let doorbellID = doorbell.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let events = try readEvents(watcher) { $0["id"] == .string(doorbellID) && $0["event"] == .string("hidden") }
        #expect(events.contains { $0["id"] == .string(doorbellID) && $0["event"] == .string("presented") }, "\(events)")
        // Mail waits through the doorbell and after it.
        let mailID = mail.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!events.contains { $0["id"] == .string(mailID) && $0["event"] == .string("presented") }, "\(events)")
        #expect(try daemon.request(.list(module: nil)).serialized.contains("Mail"))
        try eventually("status to say why mail waits") { (try daemon.request(.status)).serialized.contains("quiet hours are on") }

        let off = try nookctl(["quiet", "off"], socket: daemon.socket)
        #expect(off.output.hasPrefix("not quiet (manual) until "), "off lasts until the scheduled period ends: \(off)")
        try eventually("mail to be shown and end once quiet is off", timeout: 30) {
            let now = try daemon.request(.status)
            return now["modules"]?.items.first?["pending"] == .number(0) && !now.serialized.contains("Mail")
        }
        let on = try nookctl(["quiet", "until", "45m"], socket: daemon.socket)
        #expect(on.status == 0 && on.output.hasPrefix("quiet (manual) until "), "\(on)")
        let bad = try nookctl(["quiet", "until", "25:00"], socket: daemon.socket)
        #expect(bad.status == 1 && bad.error.contains("until"), "\(bad)")
        let usage = try nookctl(["quiet", "sometimes"], socket: daemon.socket)
        #expect(usage.status == 64, "\(usage)")
        #expect(daemon.stop().status == 0)
    }

    /// `nookctl quiet until` with what is not a time: nookd's refusal, through nookctl, names
    /// the field, quotes the text, says what is wrong with it and what form it takes; a
    /// refusal leaves quiet hours as they were.
    @Test func z1_quietUntilRefusesWhatIsNotATimeSayingWhatIsWrongAndTheFormExpected() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch)
        let form = "must be HH:MM (24-hour, such as 07:30) or whole minutes or hours up to a week (such as 45m or 2h)"
        for (text, problem) in [("90s", "'90s' is in seconds, which this does not take"), ("1.5h", "'1.5h' has a fraction"),
                                ("25:00", "'25:00' has no such hour (00 to 23)"), ("7:30", "'7:30' is not a time of day as HH:MM (two digits each)"),
                                ("169h", "'169h' is more than 168h"), ("45", "'45' has no unit")] {
            let refused = try nookctl(["quiet", "until", text], socket: daemon.socket)
            #expect(refused.status == 1 && refused.error.contains("until: \(problem); \(form)"), "\(text): \(refused)")
        }
        let status = try nookctl(["quiet", "status"], socket: daemon.socket)
        #expect(status.status == 0 && status.output.hasPrefix("not quiet"), "\(status)")
        let until = try nookctl(["quiet", "until", "07:30"], socket: daemon.socket)
        #expect(until.status == 0 && until.output.hasPrefix("quiet (manual) until "), "\(until)")
        #expect(daemon.stop().status == 0)
    }

    @Test func z1_configErrorsNameTheKey() throws {
        let scratch = Scratch()
        for (text, message) in [("[quiet]\nschedule = [\"nightly 22:00-07:00\"]\n", "quiet.schedule: \"nightly 22:00-07:00\": unknown days"),
                                ("[quiet]\nsuppress = [\"high\"]\n", "quiet.suppress: \"high\" is not below quiet.minimum_priority")] {
            let path = scratch.file("bad.toml", text)
            let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", path])
            #expect(daemon.process.terminationStatus == 2)
            #expect(daemon.log.contains(message), "\(daemon.log)")
        }
    }
}
