import Foundation
import NookProtocol
import NookTestTraits
import Testing

/// SPEC E6 end to end: a broker with a password file and a TLS listener whose certificates the
/// test makes with openssl.
@Suite("E6 MQTT bridge security against a real broker", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct MQTTSecurityTests {
    /// A CA, a server certificate for 127.0.0.1 signed by it, and a second CA that signed nothing.
    static func certificates(_ scratch: Scratch) throws -> (files: Broker.TLSFiles, otherCA: String) {
        let dir = scratch.path
        func openssl(_ arguments: [String]) throws {
            let result = try MQTTTools.run(["openssl"] + arguments)
            if result.status != 0 { throw DaemonFailure("openssl \(arguments.joined(separator: " ")): \(result.error)") }
        }
        for name in ["ca", "other"] {
            try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                         "-subj", "/CN=Nook test \(name)", "-keyout", "\(dir)/\(name).key", "-out", "\(dir)/\(name).pem"])
        }
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
                     "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr"])
        let extensions = scratch.file("server.ext", "subjectAltName = IP:127.0.0.1\n")
        try openssl(["x509", "-req", "-in", "\(dir)/server.csr", "-CA", "\(dir)/ca.pem", "-CAkey", "\(dir)/ca.key", "-CAcreateserial",
                     "-days", "2", "-extfile", extensions, "-out", "\(dir)/server.pem"])
        // Run as root, mosquitto reads its key as its own user.
        chmod("\(dir)/server.key", 0o644)
        return (Broker.TLSFiles(ca: "\(dir)/ca.pem", cert: "\(dir)/server.pem", key: "\(dir)/server.key"), "\(dir)/other.pem")
    }

    static func passwordFile(_ scratch: Scratch) throws -> String {
        let path = scratch.path + "/passwords"
        let result = try MQTTTools.run(["mosquitto_passwd", "-b", "-c", path, "board", "right-password"])
        if result.status != 0 { throw DaemonFailure("mosquitto_passwd: \(result.error)") }
        chmod(path, 0o644)
        return path
    }

    static func credentials(_ scratch: Scratch, password: String, mode: mode_t = 0o600) -> String {
        let path = scratch.file("credentials-\(UUID().uuidString)", "username = \"board\"\npassword = \"\(password)\"\n")
        chmod(path, mode)
        return path
    }

    @Test func e6_tlsWithTheRightCAConnectsAndABadCertificateIsAClearError() throws {
        let scratch = Scratch()
        let (files, otherCA) = try Self.certificates(scratch)
        let passwords = try Self.passwordFile(scratch)
        let broker = try Broker(scratch: scratch, passwordFile: passwords, tls: files)
        let daemon = try DaemonProcess(scratch: Scratch())
        try daemon.request(.suspend(module: nil))
        let good = Self.credentials(scratch, password: "right-password")
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch,
                                           extraConfig: "credentials = \"\(good)\"\n[mqtt.tls]\nca_file = \"\(files.ca)\"\n", port: broker.tlsPort)
        let sent = try MQTTTools.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", String(broker.tlsPort!), "--cafile", files.ca,
                                      "-u", "board", "-P", "right-password", "-q", "1", "-t", "nook/b1/activity", "-m", "Over TLS"])
        #expect(sent.status == 0, "\(sent.error)")
        try eventually("the card over TLS") { try daemon.activities().flatMap(\.pending).map(\.title) == ["Over TLS"] }
        #expect(bridge.process.isRunning)

        // A CA that did not sign the broker's certificate: the handshake fails, and the log says why.
        let doubtful = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, device: "b2",
                                             extraConfig: "credentials = \"\(good)\"\n[mqtt.tls]\nca_file = \"\(otherCA)\"\n",
                                             port: broker.tlsPort, waitUntilOnline: false)
        try eventually("the certificate error in the log") { doubtful.log.contains("certificate verify failed") }
        #expect(!doubtful.log.contains("connected to the broker"))
    }

    @Test func e6_aWrongPasswordIsAClearError() throws {
        let scratch = Scratch()
        let broker = try Broker(scratch: scratch, passwordFile: try Self.passwordFile(scratch))
        let daemon = try DaemonProcess(scratch: Scratch())
        let wrong = Self.credentials(scratch, password: "wrong-password")
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch,
                                           extraConfig: "credentials = \"\(wrong)\"\nallow_plain_credentials = true\n", waitUntilOnline: false)
        try eventually("the refusal in the log") { bridge.log.contains("refused the connection") }
        #expect(bridge.log.contains("not authorised") || bridge.log.contains("bad user name or password"), "\(bridge.log)")
        #expect(bridge.log.contains("credentials file"))
        #expect(bridge.process.isRunning, "keeps trying: a password may be fixed on the broker's side")
    }

    @Test func e6_credentialsOverPlainTCPOrReadableByOthersAreRefusedAtStart() throws {
        let scratch = Scratch()
        let broker = try Broker(scratch: scratch)
        let daemon = try DaemonProcess(scratch: Scratch())
        let good = Self.credentials(scratch, password: "secret")
        let plain = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, device: "plain",
                                          extraConfig: "credentials = \"\(good)\"\n", waitUntilOnline: false)
        plain.process.waitForExit()
        #expect(plain.process.terminationStatus == 1)
        #expect(plain.log.contains("refusing to send a user name and password") && plain.log.contains("mqtt.allow_plain_credentials"), "\(plain.log)")

        let open = Self.credentials(scratch, password: "secret", mode: 0o644)
        let readable = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, device: "readable",
                                             extraConfig: "credentials = \"\(open)\"\nallow_plain_credentials = true\n", waitUntilOnline: false)
        readable.process.waitForExit()
        #expect(readable.process.terminationStatus == 1)
        #expect(readable.log.contains("chmod 600"), "\(readable.log)")

        let typo = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, device: "typo",
                                         extraConfig: "colour = \"red\"\n", waitUntilOnline: false)
        typo.process.waitForExit()
        #expect(typo.process.terminationStatus == 1)
        #expect(typo.log.contains("mqtt.colour"), "\(typo.log)")
    }

    static func titles(_ daemon: DaemonProcess) throws -> [String] {
        try daemon.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }.map(\.title)
    }

    /// A broker whose access control refuses anonymous clients the subscriptions `pattern`
    /// matches: mosquitto's dynamic-security plugin, from a file written before it starts.
    static func brokerRefusing(_ scratch: Scratch, pattern: String = "nook/all/#") throws -> Broker {
        let access = scratch.file("dynamic-security.json", """
            {"defaultACLAccess": {"publishClientSend": true, "publishClientReceive": true, "subscribe": true, "unsubscribe": true},
             "clients": [], "anonymousGroup": "anonymous",
             "groups": [{"groupname": "anonymous", "roles": [{"rolename": "deaf-to-all"}], "clients": []}],
             "roles": [{"rolename": "deaf-to-all", "acls": [{"acltype": "subscribePattern", "topic": "\(pattern)", "priority": 0, "allow": false}]}]}
            """)
        guard let plugin = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"].map({ $0 + "/mosquitto_dynamic_security.so" })
            .first(where: { FileManager.default.fileExists(atPath: $0) }) else { throw DaemonFailure("no mosquitto_dynamic_security.so") }
        return try Broker(scratch: scratch, settings: ["plugin \(plugin)", "plugin_opt_config_file \(access)"])
    }

    @Test(arguments: ["5", "3.1.1"])
    func e4_aSubscriptionTheBrokerRefusesIsAnErrorNamingTheTopicAndTheOthersStillWork(protocolVersion: String) throws {
        let scratch = Scratch()
        let broker = try Self.brokerRefusing(scratch)
        let daemon = try DaemonProcess(scratch: Scratch())
        let errors = try Subscriber(broker: broker, topics: ["nook/b1/error"])
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, extraConfig: "protocol = \"\(protocolVersion)\"\n")
        try saying("nook-mqtt: \(bridge.log.suffix(3000))\nerror topic: \(errors.text)") {
            try eventually("the refusal on the error topic") { errors.json("nook/b1/error").contains { $0["code"]?.text == "subscriptionRefused" } }
            let refusals = errors.json("nook/b1/error").filter { $0["code"]?.text == "subscriptionRefused" }
            #expect(refusals.count == 1 && refusals.first?["topic"]?.text == "nook/all/activity")
            let reason = protocolVersion == "5" ? "not authorised" : "refused"
            #expect(refusals.first?["message"]?.text?.contains("the broker refused the subscription (\(reason))") == true)
            #expect(bridge.log.contains("nook/all/activity: the broker refused the subscription (\(reason))"))
            // The topics it was granted are the ones it says it listens to.
            let listening = try #require(bridge.log.split(separator: "\n").first { $0.contains("subscribed to ") })
            #expect(!listening.contains("nook/all/activity") && listening.contains("nook/b1/activity"), "\(listening)")
            // Nothing else was refused: the board's own topic still reaches nookd.
            #expect(!bridge.log.contains("$SYS"))
            try broker.publish("nook/b1/activity", "Still heard")
            try eventually("the card of the board's own topic") { try Self.titles(daemon).contains("Still heard") }
            // A refusal that stands is said once: after the broker restarts the bridge subscribes
            // again, is refused again, and says so only at debug, on no topic.
            broker.stop()
            try broker.start()
            try eventually("the bridge to subscribe again") { Self.lines(bridge.log, containing: "subscribed to ").count == 2 }
            let refusalLines = Self.lines(bridge.log, containing: "nook/all/activity: the broker refused the subscription")
            #expect(refusalLines.count == 2 && refusalLines.filter { $0.hasSuffix("(still)") }.count == 1, "\(refusalLines)")
            #expect(errors.json("nook/b1/error").filter { $0["code"]?.text == "subscriptionRefused" }.count == 1)
            try broker.publish("nook/b1/activity", "Heard after the restart")
            try eventually("the card of the board's own topic after the restart") { try Self.titles(daemon).contains("Heard after the restart") }
        }
    }

    @Test func e4_aBrokerRefusingEverySubscriptionIsSaidOnceWhileItStands() throws {
        let scratch = Scratch()
        let broker = try Self.brokerRefusing(scratch, pattern: "#")
        let daemon = try DaemonProcess(scratch: Scratch())
        // The harness waits for "subscribed to", which a bridge refused everything never says.
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, waitUntilOnline: false)
        let deaf = "the broker refused every subscription"
        try saying("nook-mqtt: \(bridge.log.suffix(3000))") {
            try eventually("the bridge to say it hears nothing") { !Self.lines(bridge.log, containing: deaf).isEmpty }
            broker.stop()
            try broker.start()
            try eventually("the bridge to be refused again") { Self.lines(bridge.log, containing: deaf).count == 2 }
            let said = Self.lines(bridge.log, containing: deaf)
            #expect(said.filter { $0.hasSuffix("(still)") }.count == 1, "\(said)")
            #expect(!bridge.log.contains("subscribed to "))
        }
    }

    static func lines(_ log: String, containing text: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(text) }
    }
}
