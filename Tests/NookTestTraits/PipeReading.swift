import Foundation
import Testing

extension FileHandle {
    /// Everything up to end-of-file, read again when a read is interrupted.
    ///
    /// Not `readDataToEndOfFile()`: Foundation turns EINTR into a `try!` failure, and the Swift
    /// runtime's crash handler stops every other thread with a signal whose handler has no
    /// SA_RESTART. One test's crash then ended the run, a moment later, as some other test's
    /// "Interrupted system call" in FileHandle, with that fatal error's status and not the crash's.
    public func readToEndOfFile(sourceLocation: SourceLocation = #_sourceLocation) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                Issue.record("read of descriptor \(fileDescriptor) failed: \(String(cString: strerror(errno)))", sourceLocation: sourceLocation)
                return data
            }
        }
    }
}
