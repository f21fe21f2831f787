import NookConfig
import NookHTTP
import NookProtocol
import Testing

/// nook-http's settings (H4): the shipped file is valid and says the defaults; errors name the key.
@Suite struct HTTPConfigTests {
    @Test func h4_theShippedConfigIsValidAndListensOnLoopbackAlone() throws {
        let config = try HTTPConfig.load(path: Built.root + "/Hardware/http.toml")
        #expect(config == HTTPConfig())
        #expect(config.listen.allSatisfy(\.isLoopback) && config.listen.map(\.port) == [8722])
        #expect(config.tokens == nil)
        let link = config.nookdOptions(socketPath: "/run/nook/nookd.sock")
        #expect(link.callTimeout == .seconds(15) && link.waitingCallTimeout == .seconds(NookProtocol.frameWaitSeconds + 15))
    }

    @Test func h4_listenTakesOneOrManyAddressesIPv6InBrackets() throws {
        let config = try HTTPConfig(ConfigDocument(parsing: "[http]\nlisten = [\"0.0.0.0:80\", \"[::1]:8722\"]\n", source: "http.toml"))
        #expect(config.listen == [HTTPListenAddress(host: "0.0.0.0", port: 80), HTTPListenAddress(host: "::1", port: 8722)])
        #expect(!config.listen[0].isLoopback && config.listen[1].isLoopback)
    }

    /// A table nook-http does not know is refused by name even with no key under it.
    @Test func h4_anUnknownTableIsRefusedByNameEvenEmpty() {
        #expect(checkError({ try HTTPConfig(ConfigDocument(parsing: "[http]\n[htpp]\n", source: "http.toml")) }) {
            $0.hasPrefix("http.toml:2: htpp: is not a known table (known: [http]")
        })
    }

    @Test func h4_aBadValueOrUnknownKeyIsAnErrorNamingIt() {
        for (text, key) in [("[http]\nmax_body_bytes = 10\n", "http.max_body_bytes"), ("[http]\nlisten = \"nowhere\"\n", "http.listen"),
                            ("[http]\nmax_conections = 5\n", "http.max_conections"), ("[http]\nrate_limit_per_s = \"fast\"\n", "http.rate_limit_per_s"),
                            ("[http]\nnookd_timeout_s = 0\n", "http.nookd_timeout_s")] {
            #expect(checkError({ try HTTPConfig(ConfigDocument(parsing: text, source: "http.toml")) }) { $0.contains(key) && $0.contains("http.toml") }, "\(text)")
        }
    }

    /// `[lametric]`: off by default; its TLS listener's addresses, files and name are read, and a
    /// bad value names its key.
    @Test func m4_theLaMetricTableIsOffByDefaultAndItsErrorsNameTheKey() throws {
        #expect(HTTPConfig().lametric.listen.isEmpty && HTTPConfig().serverOptions.tlsListen.isEmpty)
        let text = "[lametric]\nlisten = \"0.0.0.0:4343\"\ncertificate = \"/c.pem\"\nkey = \"/k.pem\"\nname = \"Kitchen\"\n"
        let config = try HTTPConfig(ConfigDocument(parsing: text, source: "http.toml"))
        #expect(config.serverOptions.tlsListen == [HTTPListenAddress(host: "0.0.0.0", port: 4343)])
        #expect(config.lametric.certificate == "/c.pem" && config.lametric.key == "/k.pem" && config.lametric.name == "Kitchen")
        for (text, key) in [("[lametric]\nlisten = \"board:4343\"\n", "lametric.listen"), ("[lametric]\nlisten = []\n", "lametric.listen"),
                            ("[lametric]\ncertificate = \"\"\n", "lametric.certificate"), ("[lametric]\nkey = 5\n", "lametric.key"),
                            ("[lametric]\nname = \"\"\n", "lametric.name"), ("[lametric]\nport = 4343\n", "lametric.port")] {
            #expect(checkError({ try HTTPConfig(ConfigDocument(parsing: text, source: "http.toml")) }) { $0.contains(key) && $0.contains("http.toml") }, "\(text)")
        }
    }
}
