import NookActivities
import NookProtocol
import Testing

/// The history's requests and answers (U4, U5) on the wire: each reads back as it was sent,
/// and each malformed one is refused naming its field.
@Suite("U5 history requests and answers round-trip through the wire")
struct HistoryProtocolTests {
    static let entry: HistoryEntry = {
        var activity = NookActivity(coalescingKey: "ci", priority: .high, title: "Build \"finished\"", subtitle: "Debug · 12.4s",
                                    systemImage: "hammer", tint: .named(.green), presentation: .blocker(timeout: .seconds(30)), progress: 0.5)
        activity.sender = NookSender(uid: 1000, pid: 4242, name: "make")
        return HistoryEntry(number: 42, activity: activity, module: "door", enqueuedAt: 1_795_444_650.0105765, shownAt: 1_795_444_651.25,
                            endedAt: 1_795_444_700.5, ending: "dismissed", onGlass: true)
    }()

    static let unseen = HistoryEntry(number: 43, activity: NookActivity(title: "missed"), module: "default", enqueuedAt: 10, shownAt: nil,
                                     endedAt: 20, ending: "coalesced", onGlass: false)

    func throughTheWire<Answer: NookAnswer>(_ answer: Answer) throws -> Answer {
        let line = ResponseLine.success(id: .number(7), result: answer.json).encoded()
        guard case .success(_, let result) = try ResponseLine.decode(Array(line.utf8)) else { throw ProtocolError(.badJSON, "not a success line") }
        return try Answer(json: result)
    }

    func decoded(_ request: Request) throws -> NookOperation {
        try Request.decode(Array(request.encoded().utf8)).get().operation
    }

    @Test func u5_everyHistoryAnswerReadsBackAsItWasSentSenderAndTimesIncluded() throws {
        let list = HistoryAnswer(entries: [Self.entry, Self.unseen], total: 900)
        #expect(try throughTheWire(list) == list)
        #expect(try throughTheWire(list).entries[0].activity.sender == NookSender(uid: 1000, pid: 4242, name: "make"))
        #expect(try throughTheWire(HistoryAnswer(entries: [], total: 0)) == HistoryAnswer(entries: [], total: 0))
        #expect(try throughTheWire(HistoryShowAnswer(entry: Self.unseen)) == HistoryShowAnswer(entry: Self.unseen))
        let id = NookActivityID()
        #expect(try throughTheWire(HistoryReplayAnswer(id: id, module: "door", replayed: 42)) == HistoryReplayAnswer(id: id, module: "door", replayed: 42))
        #expect(try throughTheWire(HistoryClearAnswer(cleared: 3, scope: .own)) == HistoryClearAnswer(cleared: 3, scope: .own))
    }

    /// nookd answers `history` from each entry's JSON as it was written: the line
    /// must be byte for byte the one the answer's tree gives, for any request id.
    @Test func u5_theHistoryAnswerMadeFromKeptJSONIsTheLineTheAnswerTreeGives() throws {
        for entries in [[Self.entry, Self.unseen], [Self.unseen], []] {
            for id: RequestID? in [.number(7), .string("q \"1\""), nil] {
                let expected = ResponseLine.success(id: id, result: HistoryAnswer(entries: entries, total: 1234).json).encoded()
                let line = HistoryAnswer.lineBytes(id: id, entries: entries.map(\.json.serializedBytes), total: 1234)
                #expect(line == Array(expected.utf8))
                guard case .success(_, let result) = try ResponseLine.decode(line) else { Issue.record("not a success: \(expected)"); continue }
                #expect(try HistoryAnswer(json: result) == HistoryAnswer(entries: entries, total: 1234))
            }
        }
    }

    @Test func u5_everyHistoryRequestRoundTrips() throws {
        let id = NookActivityID()
        for operation: NookOperation in [.history(HistoryQuery()), .history(HistoryQuery(since: 7200, key: "dl", unseen: true, limit: 5)),
                                         .historyShow(.number(42)), .historyShow(.id(id)), .historyReplay(.number(1)), .historyReplay(.id(id)),
                                         .historyClear] {
            #expect(try decoded(Request(id: .string("h"), operation: operation)) == operation)
        }
        #expect(HistoryReference("#42") == .number(42) && HistoryReference("42") == .number(42) && HistoryReference(id.description) == .id(id))
        #expect(HistoryReference("0") == nil && HistoryReference("#") == nil && HistoryReference("banana") == nil)
    }

    @Test func u5_c3_badHistoryRequestsNameTheField() {
        for (line, field) in [(#"{"op":"history","since":0}"#, "since"), (#"{"op":"history","since":"2h"}"#, "since"),
                              (#"{"op":"history","key":""}"#, "key"), (#"{"op":"history","limit":1.5}"#, "limit"),
                              (#"{"op":"history","unseen":1}"#, "unseen"), (#"{"op":"history","module":"x"}"#, "module"),
                              (#"{"op":"history-show"}"#, "entry"), (##"{"op":"history-replay","entry":"#0"}"##, "entry"),
                              (#"{"op":"history-clear","uid":3}"#, "uid")] {
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(failure.error.field == field, "\(line): \(failure.error)")
        }
    }

    @Test func u5_agesReadAsAPositiveNumberAndOneUnit() throws {
        #expect(try HistoryAge.seconds("90s").get() == 90)
        #expect(try HistoryAge.seconds("45m").get() == 2700)
        #expect(try HistoryAge.seconds("2h").get() == 7200)
        #expect(try HistoryAge.seconds("1.5d").get() == 129_600)
        #expect(try HistoryAge.seconds("1w").get() == 604_800)
        for bad in ["banana", "2", "h", "-2h", "0h", "2 h", "2hours", "nanh", "infh", "", "99999d", ".5h"] {
            guard case .failure(let problem) = HistoryAge.seconds(bad) else { Issue.record("accepted '\(bad)'"); continue }
            #expect(problem.description.contains("'\(bad)'"), "\(problem)")
        }
    }

    @Test func u5_aQueryAdmitsBySinceKeyAndUnseen() {
        let now = 1_795_444_800.0
        #expect(HistoryQuery().admits(Self.entry, now: now))
        #expect(HistoryQuery(since: 100).admits(Self.entry, now: now) && !HistoryQuery(since: 99).admits(Self.entry, now: now))
        #expect(HistoryQuery(key: "ci").admits(Self.entry, now: now) && !HistoryQuery(key: "dl").admits(Self.entry, now: now))
        #expect(!HistoryQuery(unseen: true).admits(Self.entry, now: now) && HistoryQuery(unseen: true).admits(Self.unseen, now: now))
    }
}
