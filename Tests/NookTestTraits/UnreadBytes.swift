import Foundation
import Testing

/// What a listening program has not yet read of its clients' requests: the kernel's receive
/// queue of each socket it accepted on `socket` (`ss -xn`; an accepted socket carries the
/// listening socket's path). A test that stops nookd (SIGSTOP) waits on it to know its request
/// reached nookd, whatever becomes of the client after.
public enum UnreadBytes {
    public static func accepted(on socket: String) throws -> Int {
        let (status, listed) = ProgramOutput.run("/bin/ss", ["-xn"])
        guard status == 0 else { throw Failure(description: "ss -xn failed (\(status.map(String.init) ?? "did not run")): install iproute2") }
        return listed.split(separator: "\n").reduce(0) { total, line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[0] == "u_str", fields[1] == "ESTAB", fields[4] == socket else { return total }
            return total + (Int(fields[2]) ?? 0)
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}
