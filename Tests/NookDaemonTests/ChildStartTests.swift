import Foundation
import NookTestTraits
import Testing

/// The harness's own rule (NookTestTraits/ChildStarts.swift): a test's pipe reaches only the
/// child it is given to, so another test's child cannot hold it open and hide an exit. (The
/// race itself, another thread's `run()` between its listing and its spawn, is not reproduced
/// here: the close-on-exec flag is what closes it, and that is checked.)
@Suite("Test harness: children and their pipes", .ownThreads)
struct ChildStartTests {
    @Test func aPipeGivenToNoChildIsNotInheritedByOne() throws {
        let stray = Pipe.closedOnExec()
        for descriptor in [stray.fileHandleForReading.fileDescriptor, stray.fileHandleForWriting.fileDescriptor] {
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        }
        let output = Pipe.closedOnExec()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The child lists where its descriptors lead: pipes by inode.
        child.arguments = ["-c", "for fd in /proc/self/fd/*; do readlink \"$fd\"; done"]
        child.standardOutput = output
        try child.runAlone()
        let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitForExit(seconds: 30)
        var status = stat()
        fstat(stray.fileHandleForWriting.fileDescriptor, &status)
        #expect(listing.contains("pipe:["), "the child's own standard output is a pipe: \(listing)")
        #expect(!listing.contains("pipe:[\(status.st_ino)]"), "the stray pipe reached the child: \(listing)")
    }
}
