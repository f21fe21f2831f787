#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookProtocol
import NookSystem

/// `nookctl screenshot`: the glass as a PNG (V1), upright as drawn, written atomically.
struct Screenshot: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Screenshot.self, abstract: "Save the glass as a PNG, upright as drawn (the live view's frame).",
        discussion: "With --wait-change, waits until the glass shows a frame newer than the one on it now. The file is written beside its final name and renamed over it, so a reader never sees half a PNG; a FIFO, a device or a directory at that name is refused.")
    @OptionGroup var connection: Connection
    @Option(name: .shortAndLong, help: "Where to write the PNG.") var output = "screenshot.png"
    @Flag(help: "Wait for the glass to change, and save the new frame.") var waitChange = false

    /// A path that cannot take the PNG is a refusal (exit 1), as nookd's refusals are, not a
    /// usage error: the command line itself was well formed.
    func validate() throws {
        if let problem = Self.refusal(of: output) { Self.exit("cannot write the screenshot: \(problem)") }
    }

    /// Why `path` cannot take the PNG, or nil: only a regular file (or nothing) is replaced.
    static func refusal(of path: String) -> String? {
        guard !path.isEmpty else { return "--output must not be empty" }
        guard let info = try? fileStatus(path) else { return nil }
        return info.st_mode & S_IFMT == S_IFREG ? nil : "\(path) is not a regular file (a FIFO, a device or a directory); refusing to write a PNG there"
    }

    func run() throws {
        connection.run(fetching: { (client) throws(ClientError) -> (FrameAnswer, JSONValue) in
            // nookd answers every `frame` within its bounded wait: one that does not (stopped,
            // hung) is given up on rather than waited for forever.
            client.readTimeout = .seconds(NookProtocol.frameWaitSeconds + 15)
            var result = try client.request(Request(id: .number(1), operation: .frame(after: nil)))
            var answer = try Self.decode(result)
            if waitChange {
                let seen = answer.generation
                // nookd answers after a bounded wait even when nothing changed: ask again.
                while answer.generation <= seen {
                    result = try client.request(Request(id: .number(1), operation: .frame(after: seen)))
                    answer = try Self.decode(result)
                }
            }
            // Written here, before the answer is printed, so that `--json` saves the file too.
            if let problem = Self.refusal(of: output) { Self.exit("cannot write the screenshot: \(problem)") }
            do throws(SystemCallError) {
                try Self.writeAtomically(answer.png, to: output)
            } catch {
                Self.exit("cannot write the screenshot: \(error)")
            }
            return (answer, result)
        }, human: { answer in
            "wrote \(output) (\(answer.width)x\(answer.height), frame \(answer.generation))"
        })
    }

    /// The PNG arrived but could not be saved: exit 1, as a refusal does.
    static func exit(_ message: String) -> Never {
        writeWhole("nookctl: \(message)\n", to: 2)
        Glibc.exit(1)
    }

    static func decode(_ result: JSONValue) throws(ClientError) -> FrameAnswer {
        do { return try FrameAnswer(json: result) } catch { throw .daemon(error) }
    }

    /// Writes `bytes` to a new file beside `path` and renames it over `path`; the file in
    /// between is removed if anything fails.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemCallError) {
        // A short name in the same directory: the final name may already be as long as a
        // name can be.
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let temporary = directory + ".nookctl-screenshot.part-\(getpid())"
        do {
            let file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
            try bytes.withUnsafeBytes { raw in Result { () throws(SystemCallError) in try file.writeAll(raw) } }.get()
            try renameFile(temporary, to: path)
        } catch {
            _ = try? removeFile(temporary)
            throw error
        }
    }
}

extension OperationCommands {
    /// `frame`, as `nookctl screenshot`.
    static var screenshotCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.frame, Screenshot.self),
        ]
    }
}
