internal import CSystemdBus
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// sd-bus's convention: a negative errno as the return value. Every call goes through here
/// so its failure names the function: `'sd_bus_request_name' failed: (17) File exists`.
@discardableResult
func busCall(_ call: String, subject: String? = nil, _ result: Int32) throws(SystemCallError) -> Int32 {
    if result < 0 { throw SystemCallError(call, errno: Errno(rawValue: -result), subject: subject) }
    return result
}

private func typeCode(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }

/// The one owner of an sd-bus connection, and the handler of the one object it serves.
final class Bus {
    typealias Handler = (BusMessage) -> Int32

    private let handle: OpaquePointer
    private var slot: OpaquePointer?
    private var handlerBox: Unmanaged<HandlerBox>?

    private final class HandlerBox {
        let handler: Handler
        init(_ handler: @escaping Handler) { self.handler = handler }
    }

    /// The session bus (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) or the system bus.
    init(system: Bool) throws(SystemCallError) {
        var bus: OpaquePointer?
        let call = system ? "sd_bus_open_system" : "sd_bus_open_user"
        try busCall(call, system ? sd_bus_open_system(&bus) : sd_bus_open_user(&bus))
        guard let bus else { throw SystemCallError(call, errno: .invalidArgument) }
        handle = bus
    }

    deinit {
        if let slot { sd_bus_slot_unref(slot) }
        handlerBox?.release()
        sd_bus_flush_close_unref(handle)
    }

    /// Routes every message for `path` to `handler`, which returns 1 when it answered and 0
    /// to let sd-bus answer (an unknown method or interface gets sd-bus's standard error).
    func serve(path: String, _ handler: @escaping Handler) throws(SystemCallError) {
        let box = Unmanaged.passRetained(HandlerBox(handler))
        handlerBox = box
        let callback: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            return Unmanaged<HandlerBox>.fromOpaque(userdata).takeUnretainedValue().handler(BusMessage(message))
        }
        try busCall("sd_bus_add_object", subject: path, sd_bus_add_object(handle, &slot, path, callback, box.toOpaque()))
    }

    /// Asks the bus for `name`; fails with EEXIST if another program holds it.
    func requestName(_ name: String, replace: Bool) throws(SystemCallError) {
        let flags = replace ? UInt64(SD_BUS_NAME_REPLACE_EXISTING) : 0
        try busCall("sd_bus_request_name", subject: name, sd_bus_request_name(handle, name, flags))
    }

    /// Who owns `name`: its program and pid as the bus knows them (`dunst (pid 812)`), or
    /// nil if that cannot be asked.
    func ownerDescription(of name: String) -> String? {
        var creds: OpaquePointer?
        let mask = UInt64(SD_BUS_CREDS_PID) | UInt64(SD_BUS_CREDS_COMM) | UInt64(SD_BUS_CREDS_UNIQUE_NAME) | UInt64(SD_BUS_CREDS_AUGMENT)
        guard sd_bus_get_name_creds(handle, name, mask, &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var parts: [String] = []
        var comm: UnsafePointer<CChar>?
        if sd_bus_creds_get_comm(creds, &comm) >= 0, let comm { parts.append(String(cString: comm)) }
        var pid: pid_t = 0
        if sd_bus_creds_get_pid(creds, &pid) >= 0, pid > 0 { parts.append("(pid \(pid))") }
        var unique: UnsafePointer<CChar>?
        if parts.isEmpty, sd_bus_creds_get_unique_name(creds, &unique) >= 0, let unique { parts.append(String(cString: unique)) }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    var uniqueName: String {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(handle, &name) >= 0, let name else { return "?" }
        return String(cString: name)
    }

    /// The bus connection's descriptor, the events to poll it for, and the poll timeout in
    /// milliseconds (-1: none) that sd-bus needs.
    func pollEntry() throws(SystemCallError) -> (pollfd, timeoutMilliseconds: Int32) {
        let fd = try busCall("sd_bus_get_fd", sd_bus_get_fd(handle))
        let events = try busCall("sd_bus_get_events", sd_bus_get_events(handle))
        var deadline: UInt64 = 0
        try busCall("sd_bus_get_timeout", sd_bus_get_timeout(handle, &deadline))
        var timeout: Int32 = -1
        if deadline != UInt64.max {
            // sd-bus's deadlines are CLOCK_MONOTONIC microseconds.
            let now = MonotonicClock.now.components
            let nowMicroseconds = UInt64(now.seconds) * 1_000_000 + UInt64(now.attoseconds / 1_000_000_000_000)
            timeout = deadline <= nowMicroseconds ? 0 : Int32(clamping: (deadline - nowMicroseconds + 999) / 1000)
        }
        return (pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0), timeout)
    }

    /// Handles every message that has arrived, calling the object's handler for each.
    func processAll() throws(SystemCallError) {
        while try busCall("sd_bus_process", sd_bus_process(handle, nil)) > 0 {}
    }

    func flush() { _ = sd_bus_flush(handle) }

    /// Emits a signal from `path` on `interface`.
    func emit(path: String, interface: String, member: String, _ build: (BusWriter) throws(SystemCallError) -> Void) throws(SystemCallError) {
        var signal: OpaquePointer?
        try busCall("sd_bus_message_new_signal", subject: member, sd_bus_message_new_signal(handle, &signal, path, interface, member))
        guard let signal else { return }
        defer { sd_bus_message_unref(signal) }
        try build(BusWriter(signal))
        try busCall("sd_bus_send", subject: member, sd_bus_send(handle, signal, nil))
    }

    /// The uid of the connection `sender` (a unique name), asked of the bus.
    func uid(of sender: String) throws(SystemCallError) -> UInt32 {
        var creds: OpaquePointer?
        let mask = UInt64(SD_BUS_CREDS_UID) | UInt64(SD_BUS_CREDS_EUID)
        try busCall("sd_bus_get_name_creds", subject: sender, sd_bus_get_name_creds(handle, sender, mask, &creds))
        guard let creds else { throw SystemCallError("sd_bus_get_name_creds", errno: .noData, subject: sender) }
        defer { sd_bus_creds_unref(creds) }
        var uid: uid_t = 0
        if sd_bus_creds_get_euid(creds, &uid) >= 0 || sd_bus_creds_get_uid(creds, &uid) >= 0 { return uid }
        throw SystemCallError("sd_bus_creds_get_uid", errno: .noData, subject: sender)
    }
}

/// A message being handled: its header, its arguments read in order, and the answer to it.
struct BusMessage {
    fileprivate let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

    var interface: String? { Self.text(sd_bus_message_get_interface(handle)) }
    var member: String? { Self.text(sd_bus_message_get_member(handle)) }
    var sender: String? { Self.text(sd_bus_message_get_sender(handle)) }
    var signature: String { Self.text(sd_bus_message_get_signature(handle, 1)) ?? "" }
    var isMethodCall: Bool { sd_bus_message_is_method_call(handle, nil, nil) > 0 }

    /// A string argument, cut to `limit` bytes at a character boundary; invalid UTF-8 (which
    /// the bus should already refuse) becomes U+FFFD instead of a failure.
    func string(limit: Int) throws(SystemCallError) -> (text: String, originalBytes: Int) {
        var pointer: UnsafePointer<CChar>?
        try busCall("sd_bus_message_read_basic", subject: "s", sd_bus_message_read_basic(handle, typeCode("s"), &pointer))
        guard let pointer else { return ("", 0) }
        return Self.clampedText(pointer, limit: limit)
    }

    static func clampedText(_ pointer: UnsafePointer<CChar>, limit: Int) -> (text: String, originalBytes: Int) {
        let length = strlen(pointer)
        var cut = min(length, limit)
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        // Back off to the start of a character, so a cut never leaves half of one.
        while cut < length, cut > 0, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return (String(decoding: bytes[0..<cut], as: UTF8.self), length)
    }

    func uint32() throws(SystemCallError) -> UInt32 {
        var value: UInt32 = 0
        try busCall("sd_bus_message_read_basic", subject: "u", sd_bus_message_read_basic(handle, typeCode("u"), &value))
        return value
    }

    func int32() throws(SystemCallError) -> Int32 {
        var value: Int32 = 0
        try busCall("sd_bus_message_read_basic", subject: "i", sd_bus_message_read_basic(handle, typeCode("i"), &value))
        return value
    }

    /// Enters a container; false at the end of the enclosing array.
    func enter(_ type: Unicode.Scalar, _ contents: String) throws(SystemCallError) -> Bool {
        try busCall("sd_bus_message_enter_container", subject: contents, sd_bus_message_enter_container(handle, typeCode(type), contents)) > 0
    }

    func exit() throws(SystemCallError) {
        try busCall("sd_bus_message_exit_container", sd_bus_message_exit_container(handle))
    }

    /// Reads an `as` argument; keeps the first `limit` strings (each cut to `bytes`) and skips the rest.
    func strings(limit: Int, bytes: Int) throws(SystemCallError) -> (strings: [String], total: Int) {
        _ = try enter("a", "s")
        var strings: [String] = []
        var total = 0
        while true {
            var pointer: UnsafePointer<CChar>?
            guard try busCall("sd_bus_message_read_basic", subject: "as", sd_bus_message_read_basic(handle, typeCode("s"), &pointer)) > 0 else { break }
            total += 1
            if strings.count < limit, let pointer { strings.append(Self.clampedText(pointer, limit: bytes).text) }
        }
        try exit()
        return (strings, total)
    }

    /// Reads an `a{sv}` argument: the first `limit` entries whose value is a basic type this
    /// bridge reads; the rest are skipped, never an error.
    func hints(limit: Int, bytes: Int) throws(SystemCallError) -> (hints: [String: HintValue], total: Int) {
        _ = try enter("a", "{sv}")
        var hints: [String: HintValue] = [:]
        var total = 0
        while try enter("e", "sv") {
            total += 1
            let name = try string(limit: bytes).text
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            try busCall("sd_bus_message_peek_type", sd_bus_message_peek_type(handle, &type, &contents))
            let signature = Self.text(contents) ?? ""
            if total <= limit, let value = try variant(signature, bytes: bytes) {
                hints[name] = value
            } else {
                try busCall("sd_bus_message_skip", subject: "v", sd_bus_message_skip(handle, "v"))
            }
            try exit()
        }
        try exit()
        return (hints, total)
    }

    /// The variant's value if it is of a type the mapping reads (numbers, booleans, strings),
    /// else nil and nothing is read: object paths, signatures, descriptors, arrays, structs,
    /// dicts and nested variants are skipped by the caller, whatever they hold.
    private func variant(_ signature: String, bytes: Int) throws(SystemCallError) -> HintValue? {
        guard signature.utf8.count == 1, let code = signature.unicodeScalars.first, "ybnqiuxtds".unicodeScalars.contains(code) else {
            return nil
        }
        _ = try enter("v", signature)
        defer { _ = try? exit() }
        func read<T: BitwiseCopyable>(_ initial: T) throws(SystemCallError) -> T {
            var value = initial
            let result = withUnsafeMutableBytes(of: &value) { sd_bus_message_read_basic(handle, typeCode(code), $0.baseAddress) }
            try busCall("sd_bus_message_read_basic", subject: signature, result)
            return value
        }
        switch code {
        case "y": return .integer(Int64(try read(UInt8(0))))
        case "b": return .boolean(try read(Int32(0)) != 0)
        case "n": return .integer(Int64(try read(Int16(0))))
        case "q": return .integer(Int64(try read(UInt16(0))))
        case "i": return .integer(Int64(try read(Int32(0))))
        case "u": return .integer(Int64(try read(UInt32(0))))
        case "x": return .integer(try read(Int64(0)))
        case "t": return .integer(Int64(clamping: try read(UInt64(0))))
        case "d": return .double(try read(Double(0)))
        default: return .string(try string(limit: bytes).text)
        }
    }

    /// This message kept past its handler, to be answered later (a Notify waiting for nookd).
    func retained() -> RetainedMessage { RetainedMessage(handle) }

    /// Answers with the values `build` appends.
    func reply(_ build: (BusWriter) throws(SystemCallError) -> Void) throws(SystemCallError) {
        var reply: OpaquePointer?
        try busCall("sd_bus_message_new_method_return", sd_bus_message_new_method_return(handle, &reply))
        guard let reply else { return }
        defer { sd_bus_message_unref(reply) }
        try build(BusWriter(reply))
        try busCall("sd_bus_send", sd_bus_send(nil, reply, nil))
    }

    /// Answers with a D-Bus error.
    func replyError(_ name: String, _ message: String) throws(SystemCallError) {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        sd_bus_error_set(&error, name, message)
        try busCall("sd_bus_reply_method_error", subject: name, sd_bus_reply_method_error(handle, &error))
    }
}

/// A method call held (referenced) until it is answered, once.
final class RetainedMessage {
    private let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) {
        sd_bus_message_ref(handle)
        self.handle = handle
    }

    deinit { sd_bus_message_unref(handle) }

    var message: BusMessage { BusMessage(handle) }
}

/// Appends values to a message being built.
struct BusWriter {
    fileprivate let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

    func uint32(_ value: UInt32) throws(SystemCallError) {
        var value = value
        try busCall("sd_bus_message_append_basic", subject: "u", sd_bus_message_append_basic(handle, typeCode("u"), &value))
    }

    func string(_ value: String) throws(SystemCallError) {
        try busCall("sd_bus_message_append_basic", subject: "s", value.withCString { sd_bus_message_append_basic(handle, typeCode("s"), $0) })
    }

    func strings(_ values: [String]) throws(SystemCallError) {
        try busCall("sd_bus_message_open_container", sd_bus_message_open_container(handle, typeCode("a"), "s"))
        for value in values { try string(value) }
        try busCall("sd_bus_message_close_container", sd_bus_message_close_container(handle))
    }

    func int32(_ value: Int32) throws(SystemCallError) {
        var value = value
        try busCall("sd_bus_message_append_basic", subject: "i", sd_bus_message_append_basic(handle, typeCode("i"), &value))
    }

    /// An array with nothing in it, of `contents` (`{sv}` for Notify's hints).
    func emptyArray(of contents: String) throws(SystemCallError) {
        try busCall("sd_bus_message_open_container", subject: contents, sd_bus_message_open_container(handle, typeCode("a"), contents))
        try busCall("sd_bus_message_close_container", sd_bus_message_close_container(handle))
    }
}

extension Bus {
    /// Calls a method and waits for its answer, whose first value is a uint32 (Notify's id):
    /// the client side, for nook-bench. A D-Bus error comes back as EIO naming the error.
    func callForUInt32(destination: String, path: String, interface: String, member: String,
                       timeoutMicroseconds: UInt64 = 5_000_000, _ build: (BusWriter) throws(SystemCallError) -> Void) throws(SystemCallError) -> UInt32 {
        var message: OpaquePointer?
        try busCall("sd_bus_message_new_method_call", subject: member,
                    sd_bus_message_new_method_call(handle, &message, destination, path, interface, member))
        guard let message else { throw SystemCallError("sd_bus_message_new_method_call", errno: .invalidArgument, subject: member) }
        defer { sd_bus_message_unref(message) }
        try build(BusWriter(message))
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(handle, message, timeoutMicroseconds, &error, &reply)
        defer { if let reply { sd_bus_message_unref(reply) } }
        if result < 0 {
            let detail = [error.name, error.message].compactMap { $0.map { String(cString: $0) } }.joined(separator: ": ")
            throw SystemCallError("sd_bus_call", errno: Errno(rawValue: -result), subject: detail.isEmpty ? member : member + " (" + detail + ")")
        }
        guard let reply else { throw SystemCallError("sd_bus_call", errno: .ioError, subject: member) }
        var value: UInt32 = 0
        try busCall("sd_bus_message_read_basic", subject: "u", sd_bus_message_read_basic(reply, typeCode("u"), &value))
        return value
    }
}
