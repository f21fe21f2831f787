import Foundation
import Testing

/// A program run to its end, for what it prints: its exit status (nil where it could not start
/// or its exit went unseen) and its standard output, its errors thrown away.
public enum ProgramOutput {
    public static func run(_ executable: String, _ arguments: [String]) -> (status: Int32?, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.runAlone()) != nil else { return (nil, "") }
        let text = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        return (process.waitForExit() ? process.terminationStatus : nil, text)
    }
}
