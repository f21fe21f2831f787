import Foundation
import NookHTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// M4: what `lametric.certificate` and `lametric.key` may name. OpenSSL is given only a bounded
/// regular file: it would wait forever to open a FIFO and read a device without end, and
/// nook-http would never start nor say why.
struct LaMetricTLSFilesTests {
    @Test func m4_aFIFOADeviceADirectoryOrAHugeFileAsCertificateOrKeyIsRefusedNamingItNotWaitedOn() throws {
        let folder = NSTemporaryDirectory() + "nook-tls-files-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        try Data(count: HTTPTLSContext.largestFile + 1).write(to: URL(fileURLWithPath: folder + "/huge"))
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: folder + "/small"))
        let refusals = [(folder + "/fifo", "is a FIFO, not a regular file"), ("/dev/zero", "is a character device, not a regular file"),
                        (folder, "is a directory, not a regular file"), (folder + "/huge", "more than the \(HTTPTLSContext.largestFile) allowed")]
        for (path, said) in refusals {
            for asKey in [false, true] {
                let setting = asKey ? "lametric.key" : "lametric.certificate"
                do throws(HTTPTLSError) {
                    _ = try HTTPTLSContext(certificate: asKey ? folder + "/small" : path, key: asKey ? path : folder + "/small",
                                           settings: ("lametric.certificate", "lametric.key"))
                    Issue.record("\(setting) = \(path) was taken")
                } catch {
                    #expect(error.description.hasPrefix("\(setting) = \"\(path)\" cannot be read: ") && error.description.contains(said),
                            "\(error)")
                }
            }
        }
    }
}
