import Foundation
import NookProtocol
import NookTestTraits
import Testing

/// E1: a Notify whose enqueue reached nookd but whose answer was lost (nookd's answer waited
/// on a slow disk past the bridge's timeout, or the connection dropped) is retried once; the
/// retry is refused as a duplicate id. The bridge used to report that refusal as a failure to
/// the D-Bus caller although the card was queued, and never registered the notification (so
/// no NotificationClosed, no CloseNotification for it).
@Suite("E1 a notification whose first answer was lost", .serialized, .ownThreads, .enabled(if: NotifyTools.available, NotifyTools.skipReason))
struct NotifyRetryTests {
    /// Stands in for nookd: takes the first enqueue and hangs up without answering, then
    /// answers the retry as nookd answers an id it already holds.
    static let fakeNookd = #"""
    import json, os, socket, sys, threading
    path, log = sys.argv[1], sys.argv[2]
    server = socket.socket(socket.AF_UNIX); server.bind(path); server.listen(16)
    enqueued = []
    lock = threading.Lock()
    def answer(conn, rid, ok, body):
        line = {"v": 1, "id": rid, "ok": ok, ("result" if ok else "error"): body}
        conn.sendall((json.dumps(line) + "\n").encode())
    def serve(conn):
        data = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk: return
            data += chunk
            while b"\n" in data:
                line, data = data.split(b"\n", 1)
                request = json.loads(line)
                op, rid = request["op"], request.get("id")
                if op == "watch": answer(conn, rid, True, {"watching": True})
                elif op == "list": answer(conn, rid, True, {"modules": []})
                elif op == "enqueue":
                    activity = request["activity"]["id"]
                    with lock:
                        first = activity not in enqueued
                        enqueued.append(activity)
                        open(log, "a").write(activity + "\n")
                    if first: conn.close(); return
                    answer(conn, rid, False, {"code": "invalid", "field": "activity.id",
                        "message": "activity %s is already queued or on screen in module default; an id names one activity until it ends" % activity})
                else: answer(conn, rid, False, {"code": "invalid", "message": "not in this fake"})
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
    """#

    @Test func e1_aRetryRefusedAsADuplicateIdIsTheFirstAttemptTakenNotAFailure() throws {
        let scratch = Scratch()
        let script = scratch.file("fake-nookd.py", Self.fakeNookd)
        let socket = scratch.path + "/nookd.sock"
        let log = scratch.path + "/enqueued"
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fake.arguments = [script, socket, log]
        try fake.runAlone()
        defer { stopProcess(fake) }
        try eventually("the fake nookd to listen") { FileManager.default.fileExists(atPath: socket) }

        let bus = try PrivateBus(scratch: scratch)
        let bridge = try NotifyBridgeProcess(bus: bus, socket: socket, scratch: scratch)
        let result = try bus.run(["notify-send", "-p", "Backup complete"])
        #expect(result.status == 0, "notify-send failed: \(result.error)\nbridge: \(bridge.log)")
        #expect(UInt32(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "\(result.output)")
        let attempts = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(attempts.count == 2 && Set(attempts).count == 1, "the same activity sent twice: \(attempts)")
        #expect(bridge.log.contains("from an attempt whose answer was lost"), "\(bridge.log)")
    }
}
