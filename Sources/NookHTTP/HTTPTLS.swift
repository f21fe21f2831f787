internal import CNookTLS
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// Why TLS could not be set up: the certificate or key file and OpenSSL's reason, naming the
/// setting that points at it.
public struct HTTPTLSError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// A TLS server context (OpenSSL's, through CNookTLS): the certificate chain and key read once
/// at start. Owned; freed with this value.
public final class HTTPTLSContext {
    fileprivate let context: OpaquePointer
    /// A certificate chain or a key is a few kilobytes; anything this big is not one.
    public static let largestFile = 1 << 20

    /// - Parameters:
    ///   - certificate, key: PEM files.
    ///   - settings: the keys that named them, for the error (`lametric.certificate`, `lametric.key`).
    public init(certificate: String, key: String, settings: (certificate: String, key: String)) throws(HTTPTLSError) {
        for (path, setting) in [(certificate, settings.certificate), (key, settings.key)] {
            // Read once here so that the error is the file's own (OpenSSL's names no errno), and
            // so that OpenSSL is given only a bounded regular file: it would wait forever to open
            // a FIFO and read /dev/zero without end, and nook-http would never start or say why.
            let failure: String
            do throws(FileReadError) { _ = try readRegularFile(path, limit: Self.largestFile); continue } catch {
                switch error {
                case .systemCall(let failed): failure = "'\(failed.call)' failed: \(failed.errno)"
                case .notRegular, .tooLarge: failure = "\(error)"
                }
            }
            throw HTTPTLSError(description: "\(setting) = \"\(path)\" cannot be read: \(failure)"
                + (setting == settings.certificate ? "; make one with the openssl command in nook-http(8)" : ""))
        }
        var error = nook_tls_error()
        guard let made = nook_tls_context_new(certificate, key, &error) else {
            throw HTTPTLSError(description: "\(settings.certificate) = \"\(certificate)\", \(settings.key) = \"\(key)\": \(Self.text(error))")
        }
        context = made
    }

    deinit { nook_tls_context_free(context) }

    /// OpenSSL's version, for the log.
    public static var libraryVersion: String { String(cString: nook_tls_library_version()) }

    static func text(_ error: nook_tls_error) -> String {
        withUnsafeBytes(of: error.text) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// A session on an accepted socket, or why not.
    func session(on fd: Int32) -> Result<HTTPTLSSession, HTTPTLSError> {
        var error = nook_tls_error()
        guard let session = nook_tls_session_new(context, fd, &error) else { return .failure(HTTPTLSError(description: Self.text(error))) }
        return .success(HTTPTLSSession(session, owner: self))
    }
}

/// One connection's TLS session: reads and writes that never block, each saying whether it
/// waits for the socket to be readable or writable (a handshake's or a key update's turn may
/// need the other direction than the call's).
final class HTTPTLSSession {
    private let session: OpaquePointer
    /// The context (a server's or a client's) outlives its sessions.
    private let context: AnyObject
    /// The last read stopped until the socket takes bytes (a handshake's answer).
    var readWaitsForWritable = false
    /// The last write stopped until the socket has bytes (a handshake not yet finished).
    var writeWaitsForReadable = false

    enum Outcome {
        case bytes(Int)
        case wouldBlock
        case ended
        case failed(String)
    }

    fileprivate init(_ session: OpaquePointer, owner: AnyObject) {
        (self.session, self.context) = (session, owner)
    }

    deinit { nook_tls_session_free(session) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        var error = nook_tls_error()
        let result = nook_tls_read(session, buffer.baseAddress, buffer.count, &error)
        readWaitsForWritable = result == Int(NOOK_TLS_WANT_WRITE)
        return outcome(result, error)
    }

    func write(_ bytes: UnsafeRawPointer, count: Int) -> Outcome {
        var error = nook_tls_error()
        let result = nook_tls_write(session, bytes, count, &error)
        writeWaitsForReadable = result == Int(NOOK_TLS_WANT_READ)
        return outcome(result, error)
    }

    private func outcome(_ result: Int, _ error: nook_tls_error) -> Outcome {
        switch result {
        case 1...: return .bytes(result)
        case Int(NOOK_TLS_WANT_READ), Int(NOOK_TLS_WANT_WRITE): return .wouldBlock
        case Int(NOOK_TLS_CLOSED): return .ended
        default: return .failed(HTTPTLSContext.text(error))
        }
    }

    /// Decrypted bytes OpenSSL holds: the socket's poll does not announce them.
    var holdsBytes: Bool { nook_tls_pending(session) > 0 }

    /// close_notify, once, before the write side is shut.
    func closeNotify() { nook_tls_close_notify(session) }
}

/// A TLS client context (the icon fetcher's, M3): servers verified against the system's trust
/// store, as curl and apt verify them. Owned; freed with this value.
final class HTTPTLSClient {
    private let context: OpaquePointer

    init() throws(HTTPTLSError) {
        var error = nook_tls_error()
        guard let made = nook_tls_client_context_new(&error) else { throw HTTPTLSError(description: HTTPTLSContext.text(error)) }
        context = made
    }

    deinit { nook_tls_context_free(context) }

    /// A session on a connected, blocking socket with the handshake done and `host`'s
    /// certificate verified; its reads and writes block up to the socket's timeouts.
    func session(on fd: Int32, host: String) throws(HTTPTLSError) -> HTTPTLSSession {
        var error = nook_tls_error()
        guard let session = nook_tls_client_session_new(context, fd, host, &error) else {
            throw HTTPTLSError(description: HTTPTLSContext.text(error))
        }
        return HTTPTLSSession(session, owner: self)
    }
}
