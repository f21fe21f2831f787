import NookActivities
import NookProtocol
import Testing

@Suite("U1 C3 the update request, its answer and the updated event")
struct UpdateProtocolTests {
    func decode(_ line: String) -> Result<Request, RequestFailure> { Request.decode(Array(line.utf8)) }

    @Test func u1_anUpdateByIdOrByKeyRoundTrips() throws {
        let id = NookActivityID()
        for operation in [
            NookOperation.update(.id(id), changes: ActivityChanges(members: [("progress", .number(0.4))]), restartDwell: false),
            .update(.key("dl", module: "main"), changes: ActivityChanges(members: [("title", .string("Done")), ("blocker", .bool(false))]), restartDwell: true),
        ] {
            let request = Request(id: .number(7), operation: operation)
            #expect(try decode(request.encoded()).get() == request)
        }
    }

    @Test func u1_c3_badUpdatesAreRefusedNamingTheField() {
        let id = NookActivityID()
        let cases: [(String, ProtocolError.Code, String?)] = [
            (#"{"op":"update","changes":{"title":"x"}}"#, .missingField, "activity"),
            (#"{"op":"update","activity":"\#(id)","key":"k","changes":{"title":"x"}}"#, .invalid, "key"),
            (#"{"op":"update","activity":"\#(id)"}"#, .missingField, "changes"),
            (#"{"op":"update","activity":"\#(id)","changes":{}}"#, .invalid, "changes"),
            (#"{"op":"update","activity":"\#(id)","changes":{"id":"\#(NookActivityID())"}}"#, .invalid, "changes.id"),
            (#"{"op":"update","activity":"\#(id)","changes":{"titel":"x"}}"#, .invalid, "changes.titel"),
            (#"{"op":"update","activity":"\#(id)","changes":{"tint":"chartreuse"}}"#, .invalid, "changes.tint"),
            (#"{"op":"update","activity":"\#(id)","changes":{"progress":2}}"#, .invalid, "changes.progress"),
            (#"{"op":"update","activity":"\#(id)","changes":{"title":null}}"#, .invalid, "changes.title"),
            (#"{"op":"update","activity":"\#(id)","changes":{"dwell":"long"}}"#, .wrongType, "changes.dwell"),
            (#"{"op":"update","activity":"\#(id)","module":"main","changes":{"title":"x"}}"#, .invalid, "module"),
        ]
        for (line, code, field) in cases {
            guard case .failure(let failure) = decode(line) else {
                Issue.record("accepted: \(line)")
                continue
            }
            #expect(failure.error.code == code && failure.error.field == field, "\(line): \(failure.error)")
        }
        #expect((try? decode(#"{"op":"update","activity":"\#(id)","changes":{},"restartDwell":true}"#).get()) != nil,
                "restarting the dwell alone is a change")
    }

    @Test func u1_changesApplyThroughTheCodecAndClearOptionalFields() throws {
        var blocker = NookActivity(title: "Downloading", subtitle: "nook.tar.gz", presentation: .blocker(timeout: .seconds(600)), progress: 0.4)
        blocker.sender = NookSender(uid: 1000, pid: 7, name: "curl")
        let result = try ActivityChanges(json: .object([("title", .string("Download complete")), ("blocker", .bool(false)),
                                                        ("dwell", .number(3)), ("progress", .null)])).applied(to: blocker)
        #expect(result.title == "Download complete" && result.presentation == .timed && result.dwell == .seconds(3))
        #expect(result.progress == nil && result.subtitle == "nook.tar.gz" && result.id == blocker.id)
        #expect(result.sender == blocker.sender, "the sender is not a field a client changes")
        #expect(throws: ProtocolError(.invalid, field: "changes.timeout", "applies only to blockers (\"blocker\": true)")) {
            try ActivityChanges(json: .object([("timeout", .number(5))])).applied(to: NookActivity(title: "timed"))
        }
        #expect(ActivityField.allCases.filter(\.isClearable) == [.subtitle, .icon, .key, .timeout, .expiresAfter, .progress, .transition, .endDelay, .sound,
                                                                  .soundRepeat],
                "null clears an optional field, or puts an animation timing back to its default")
    }

    @Test func u1_theUpdatedEventNamesTheChangedFieldsAndTheAnswerReadsBack() throws {
        let before = NookActivity(title: "Downloading", progress: 0.4)
        var after = before
        after.progress = 0.7
        after.title = "Almost"
        let event = EventMessage(NookActivityEvent(activity: after, kind: .updated(previous: before), at: .origin, module: "main"))
        #expect(event.event == .updated && event.fields == ["title", "progress"] && event.ending == nil)
        #expect(try EventMessage(json: event.json) == event)
        let answer = UpdateAnswer(updated: [.init(id: after.id, fields: ["title", "progress"], onScreen: true)])
        #expect(try UpdateAnswer(json: answer.json) == answer)
    }

    @Test func u3_aRefusalForSomeoneElsesActivityHasItsOwnExitCode() {
        #expect(ClientError.daemon(ProtocolError(.forbidden, field: "activity", "not yours")).exitCode == ExitCodes.notOwner)
        #expect(ClientError.daemon(ProtocolError(.forbidden, "uid 5 is not allowed to use nookd")).exitCode == ExitCodes.refused)
        #expect(ExitCodes.notOwner == 5)
    }
}
