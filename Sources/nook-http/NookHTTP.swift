import NookHTTP
#if canImport(Glibc)
import Glibc
#endif

/// nook-http: reads its flags and runs the HTTP server (SPEC H1-H4, V1-V2).
@main
enum NookHTTPCommand {
    static func main() {
        // The server and its flags arrive with the server's branch.
        exit(69)
    }
}
