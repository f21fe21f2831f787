import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4: TLS as documented, behind Debian's nginx with the repository's example config: a
/// self-signed certificate made by openssl, curl checking it with `--cacert`, and a real
/// nook-http and nookd behind.
@Suite("H4 nook-http behind nginx with TLS", .serialized, .ownThreads)
struct NginxTLSTests {
    @Test func h4_curlReachesNookdThroughNginxsTLSWithAToken() throws {
        let token = "nook_tls-test-token"
        let tokens = NSTemporaryDirectory() + "nook-http-tls-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try "owner admin sha256:\(sha256Hex(token))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\n")
        let proxy = try Nginx(upstreamPort: service.port)

        let through = try curl(["--cacert", proxy.certificate, "-H", "Authorization: Bearer \(token)",
                                "https://localhost:\(proxy.port)/healthz"])
        #expect(through.status == 0, "\(through.error) \(proxy.errorLog)")
        #expect(through.output.statusCodes == [200] && through.output.contains("\"nookd\":\"reachable\""), "\(through.output)\n\(service.logs)")
        // The certificate is checked: without the CA curl refuses.
        let unchecked = try curl(["https://localhost:\(proxy.port)/healthz"])
        #expect(unchecked.status != 0)
        // Through the proxy the client is not "on this machine": no token, no answer.
        let anonymous = try curl(["--cacert", proxy.certificate, "https://localhost:\(proxy.port)/healthz"])
        #expect(anonymous.output.statusCodes == [401], "\(anonymous.output)")
        // The page served through the proxy changes things (the file names the address asked
        // for, port and all, in X-Forwarded-Host); another site's page does not.
        let page = try curl(["--cacert", proxy.certificate, "-u", ":\(token)", "-X", "POST", "-H", "Origin: https://localhost:\(proxy.port)",
                             "https://localhost:\(proxy.port)/api/v1/suspend"])
        #expect(page.output.statusCodes == [200], "\(page.output) \(proxy.errorLog)")
        let other = try curl(["--cacert", proxy.certificate, "-u", ":\(token)", "-X", "POST", "-H", "Origin: https://localhost:1",
                              "https://localhost:\(proxy.port)/api/v1/resume"])
        #expect(other.output.statusCodes == [403] && other.output.contains("\"field\":\"Origin\""), "\(other.output)")
    }

    @Test func h4_withoutATokenFileAProxiedClientIsNotTakenForALocalOne() throws {
        let service = try HTTPService()
        let proxy = try Nginx(upstreamPort: service.port)
        let anonymous = try curl(["--cacert", proxy.certificate, "https://localhost:\(proxy.port)/healthz"])
        #expect(anonymous.output.statusCodes == [403], "\(anonymous.output) \(proxy.errorLog)")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
    }
}

/// nginx with Hardware/nginx/nook-http.conf's server block, on a free loopback port with a
/// certificate for `localhost` made here; stopped when released.
final class Nginx {
    let directory: String
    let certificate: String
    private(set) var port: UInt16 = 0

    init(upstreamPort: UInt16) throws {
        directory = NSTemporaryDirectory() + "nook-nginx-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let made = try runProgram("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                                                       "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        guard made.status == 0 else { throw TestFailure("openssl: \(made.error)") }
        // The example's server block as shipped, pointed at this test's ports and files.
        var example = try String(contentsOfFile: Built.root + "/Hardware/nginx/nook-http.conf", encoding: .utf8)
        example = example.replacingOccurrences(of: "server 127.0.0.1:8722;", with: "server 127.0.0.1:\(upstreamPort);")
            .replacingOccurrences(of: "/etc/ssl/certs/nook.example.net.pem", with: certificate)
            .replacingOccurrences(of: "/etc/ssl/private/nook.example.net.key", with: key)
            .replacingOccurrences(of: "listen [::]:443 ssl;\n", with: "")
        for attempt in 0..<20 {
            port = UInt16.random(in: 20000...60000)
            let server = example.replacingOccurrences(of: "listen 443 ssl;", with: "listen 127.0.0.1:\(port) ssl;")
            let config = """
                worker_processes 1;
                pid \(directory)/nginx.pid;
                error_log \(directory)/logs/error.log info;
                events { worker_connections 64; }
                http {
                    access_log off;
                    client_body_temp_path \(directory)/body;
                    proxy_temp_path \(directory)/proxy;
                    fastcgi_temp_path \(directory)/fastcgi;
                    uwsgi_temp_path \(directory)/uwsgi;
                    scgi_temp_path \(directory)/scgi;
                \(server)
                }
                """
            try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            let started = Process()
            started.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            started.arguments = ["-e", directory + "/logs/error.log", "-p", directory, "-c", directory + "/nginx.conf", "-g", "daemon off;"]
            started.standardOutput = FileHandle.nullDevice
            started.standardError = FileHandle.nullDevice
            try started.runAlone()
            // Listening once its pid file is written; gone at once if the port was taken.
            let deadline = Date().addingTimeInterval(TestBounds.seconds(10))
            while started.isRunning, !FileManager.default.fileExists(atPath: directory + "/nginx.pid"), Date() < deadline { usleep(20_000) }
            if started.isRunning, FileManager.default.fileExists(atPath: directory + "/nginx.pid") {
                processStarted = started
                return
            }
            if started.isRunning { kill(started.processIdentifier, SIGKILL); started.waitForExit() }
            if attempt == 19 { throw TestFailure("nginx did not start: \(errorLog)") }
        }
    }

    private var processStarted: Process?

    var errorLog: String { (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? "" }

    deinit {
        if let started = processStarted, started.isRunning {
            kill(started.processIdentifier, SIGQUIT)
            if !started.exited(within: 10) { kill(started.processIdentifier, SIGKILL); started.waitForExit() }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
