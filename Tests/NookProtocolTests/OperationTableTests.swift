import NookActivities
import NookProtocol
import Testing

/// The protocol's one table of operations (``NookOperation/Name``): the name list, the
/// decoders and the encoder agree on every operation.
@Suite("C1 the table of operations")
struct OperationTableTests {
    /// Requests of each operation, with and without their optional fields. A switch over the
    /// table: a new operation does not compile here until it has samples.
    static func samples(of name: NookOperation.Name) -> [NookOperation] {
        let id = NookActivityID()
        let activity = NookActivity(coalescingKey: "build", priority: .high, title: "Build finished", subtitle: "Debug · 12.4s",
                                    systemImage: "hammer", tint: .named(.green), dwell: .seconds(3),
                                    presentation: .blocker(timeout: .seconds(30)), expiresAfter: .seconds(60), progress: 0.5)
        switch name {
        case .enqueue:
            var relayed = NookActivity(title: "From a token")
            relayed.sender = NookSender(uid: 0, pid: 0, name: "grafana")
            return [.enqueue(activity, module: "ci", wait: true), .enqueue(NookActivity(title: "Hi"), module: nil, wait: false),
                    .enqueue(relayed, module: nil, wait: false)]
        case .cancel: return [.cancel(id)]
        case .cancelAll: return [.cancelAll(key: "build", module: nil), .cancelAll(key: "build", module: "ci")]
        case .dismiss: return [.dismiss(id), .dismiss(nil)]
        case .suspend: return [.suspend(module: "ci"), .suspend(module: nil)]
        case .resume: return [.resume(module: nil), .resume(module: "ci")]
        case .quiesce: return [.quiesce(module: nil), .quiesce(module: "ci")]
        case .status: return [.status]
        case .list: return [.list(module: nil), .list(module: "ci", offset: 40)]
        case .watch: return [.watch]
        case .snapshot: return [.snapshot]
        case .home: return [.home(.clock), .home(.blank), .home(.text("Quiet"))]
        case .focus: return [.focus(module: "music")]
        case .glance:
            return [.glance(nil), .glance(NookGlance(columns: 20, rows: 2, lines: ["CPU 12%", "é ✓"], titleRow: 0,
                                                     bars: [NookGlance.Bar(row: 1, column: 4, length: 2.5, direction: .vertical)],
                                                     highlightRow: 1, menu: true))]
        case .quiet: return [.quiet(.on), .quiet(.off), .quiet(.status), .quiet(.until("07:30"))]
        case .indicator: return [.indicator(NookIndicator(number: 3, color: 0x0000FF, fadeMs: 2000)), .indicator(.off(1))]
        case .display:
            return [.display(DisplaySetting()), .display(DisplaySetting(power: .off)), .display(DisplaySetting(power: .offFor(seconds: 60), brightness: .percent(0))),
                    .display(DisplaySetting(power: .on, brightness: .automatic)), .display(DisplaySetting(brightness: .percent(100)))]
        case .update:
            return [.update(.id(id), changes: ActivityChanges(members: [("progress", .number(0.7))]), restartDwell: true),
                    .update(.key("build", module: "ci"), changes: ActivityChanges(members: [("title", .string("Done"))]), restartDwell: false)]
        case .inputs: return [.inputs]
        case .press: return [.press(.open), .press(.dismiss, holdMs: 900)]
        case .invoke: return [.invoke(id), .invoke(nil)]
        case .history: return [.history(HistoryQuery()), .history(HistoryQuery(since: 7200, key: "build", unseen: true, limit: 10, before: 12))]
        case .historyShow: return [.historyShow(.number(3)), .historyShow(.id(id))]
        case .historyReplay: return [.historyReplay(.id(id)), .historyReplay(.number(1))]
        case .historyClear: return [.historyClear]
        case .frame: return [.frame(after: nil), .frame(after: 41)]
        case .appSet:
            let full = NookApp(name: "power", content: .fragments([.init("1.2", tint: .rgb(red: 255, green: 0, blue: 0)), .init(" kW")]),
                               icon: "bolt", tint: .named(.yellow), progress: 0.4, chart: NookApp.Chart(.line, [1, 4, 9]),
                               duration: .seconds(10), position: 3, lifetime: .seconds(600), lifetimeMode: .stale, hasAction: true)
            return [.appSet(NookApp(name: "weather", content: .text("21 °C"))), .appSet(full)]
        case .appSetAll:
            return [.appSetAll([NookApp(name: "weather0", content: .text("21 °C")), NookApp(name: "weather1", content: .text("Rain"), progress: 0.5)])]
        case .appRemove: return [.appRemove("weather")]
        case .appList: return [.appList]
        case .appShow: return [.appShow("weather")]
        case .appNext: return [.appNext]
        case .appPrevious: return [.appPrevious]
        case .appSwitch: return [.appSwitch("weather")]
        case .soundPlay: return [.soundPlay(SoundRequest(sound: "doorbell")), .soundPlay(SoundRequest(sound: "two:d=4,o=5,b=100:e,c", priority: .high, volume: 40))]
        case .soundStop: return [.soundStop]
        case .soundVolume: return [.soundVolume(.read), .soundVolume(.set(0)), .soundVolume(.set(100)), .soundVolume(.configured)]
        case .iconsWanted: return [.iconsWanted]
        }
    }

    @Test(arguments: NookOperation.Name.allCases)
    func c1_everyOperationRoundTripsUnderItsOwnName(name: NookOperation.Name) throws {
        for operation in Self.samples(of: name) {
            #expect(operation.name == name, "\(operation)")
            let line = Request(id: .string("r"), operation: operation, deadline: 12.5).encoded()
            let decoded = try Request.decode(Array(line.utf8)).get()
            #expect(decoded == Request(id: .string("r"), operation: operation, deadline: 12.5), "\(line)")
            let json = try JSONValue.parse(Array(line.utf8))
            #expect(json["op"] == .string(name.rawValue), "\(line)")
            // Every field the encoder writes is one the decoder accepts.
            guard case .object(let members) = json else { Issue.record("not an object: \(line)"); continue }
            for (key, _) in members where !["v", "id", "op", "deadline"].contains(key) {
                #expect(name.entry.fields.contains(key), "\(name.rawValue) writes \(key), which its decoder refuses")
            }
        }
    }

    @Test(arguments: NookOperation.Name.allCases)
    func c3_aFieldOutsideTheOperationsTableIsRefusedNamingIt(name: NookOperation.Name) throws {
        let operation = try #require(Self.samples(of: name).first)
        var line = Request(id: .number(1), operation: operation).encoded()
        line.removeLast()
        line += #","colour":"red"}"#
        guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); return }
        #expect(failure.error.code == .invalid && failure.error.field == "colour", "\(failure.error)")
    }

    /// A bridge learns from the row whether a request only reads (nook-http: a read lost with
    /// nookd did nothing) and how large its answer may be; a read is what anyone may ask.
    @Test(arguments: NookOperation.Name.allCases)
    func c1_whatARequestChangesAndItsAnswersSizeComeFromItsRow(name: NookOperation.Name) {
        for operation in Self.samples(of: name) {
            if !operation.changesSomething { #expect(operation.scope == .anyone, "\(operation) only reads, yet needs \(operation.scope)") }
            #expect(operation.expectedAnswerBytes >= 1024, "\(operation): \(operation.expectedAnswerBytes) bytes")
        }
    }

    @Test func c1_theOperationsThatOnlyReadAreWhatTheirRowsSay() {
        let reads = Set(NookOperation.Name.allCases.filter { Self.samples(of: $0).contains { !$0.changesSomething } })
        #expect(reads == [.status, .watch, .snapshot, .inputs, .iconsWanted, .frame, .list, .history, .historyShow, .appList, .appShow, .quiet, .display, .soundVolume])
        #expect(NookOperation.quiet(.status).changesSomething == false && NookOperation.quiet(.on).changesSomething)
        #expect(!NookOperation.display(DisplaySetting()).changesSomething && NookOperation.display(DisplaySetting(brightness: .automatic)).changesSomething)
    }

    @Test func c1_theNameListIsTheTableInOrderAndAnUnknownOperationNamesThemAll() {
        #expect(NookOperation.names == NookOperation.Name.allCases.map(\.rawValue))
        #expect(Set(NookOperation.names).count == NookOperation.names.count)
        guard case .failure(let failure) = Request.decode(Array(#"{"op":"explode"}"#.utf8)) else { Issue.record("accepted"); return }
        #expect(failure.error.code == .unknownOperation && failure.error.message.hasSuffix("known: " + NookOperation.names.joined(separator: ", ")))
        for name in NookOperation.Name.allCases {
            #expect(NookOperation.Name(rawValue: name.rawValue) == name)
            if name.entry.command == .subcommand { #expect(name.commandWords == [name.rawValue]) }
        }
    }
}
