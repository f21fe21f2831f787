import NookLogging
import NookActivities
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// The bus side: the methods of org.freedesktop.Notifications as the bridge answers them.
extension NotificationBridge {
    static let errorFailed = "org.freedesktop.DBus.Error.Failed"
    static let errorInvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let errorAccessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    /// Too many: a sender over its limits, the bridge's line of waiting notifications full, or
    /// nookd's queue full. The notification spec names no errors; this is the standard D-Bus
    /// one, which GLib senders match as G_DBUS_ERROR_LIMITS_EXCEEDED.
    static let errorLimitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// 1: answered (or to be answered once nookd has); 0: not ours, sd-bus answers (unknown
    /// method); negative: a failure sd-bus turns into an error reply.
    func handle(_ message: BusMessage) -> Int32 {
        guard message.isMethodCall, let member = message.member else { return 0 }
        trim.activity(at: MonotonicClock.seconds)
        let interface = message.interface
        do throws(SystemCallError) {
            if interface == "org.freedesktop.DBus.Introspectable" && member == "Introspect" {
                try message.reply { writer throws(SystemCallError) in try writer.string(Self.introspection) }
                return 1
            }
            guard interface == nil || interface == Self.interface else { return 0 }
            let expected: String
            switch member {
            case "Notify": expected = "susssasa{sv}i"
            case "CloseNotification": expected = "u"
            case "GetCapabilities", "GetServerInformation": expected = ""
            default: return 0
            }
            guard message.signature == expected else {
                try message.replyError(Self.errorInvalidArgs, "\(member) takes (\(expected)), got (\(message.signature))")
                return 1
            }
            switch member {
            case "Notify": try notify(message)
            case "CloseNotification": try close(message)
            case "GetCapabilities":
                try message.reply { writer throws(SystemCallError) in try writer.strings(Self.capabilities) }
            default:
                let info = Self.serverInformation
                try message.reply { writer throws(SystemCallError) in
                    for value in [info.name, info.vendor, info.version, info.specVersion] { try writer.string(value) }
                }
            }
            return 1
        } catch {
            logger.error("\(member) from \(message.sender ?? "?"): \(error)")
            return -error.errno.rawValue
        }
    }

    func senderUID(_ sender: String) throws(SystemCallError) -> UInt32 {
        if let uid = uids[sender] { return uid }
        let uid = try bus.uid(of: sender)
        // Unique names are never reused on a bus, so a cached uid stays right; the cache is
        // only bounded.
        if uids.count >= 1024 { uids.removeAll(keepingCapacity: true) }
        uids[sender] = uid
        return uid
    }

    func notify(_ message: BusMessage) throws(SystemCallError) {
        let sender = message.sender ?? ""
        var notes: [String] = []
        func text(_ what: String, limit: Int) throws(SystemCallError) -> String {
            let (text, bytes) = try message.string(limit: limit)
            if bytes > limit { notes.append("\(what) of \(bytes) bytes cut to \(limit)") }
            return text
        }
        var call = NotifyCall(summary: "")
        call.appName = try text("app_name", limit: NotifyLimits.shortStringBytes)
        call.replacesID = try message.uint32()
        call.appIcon = try text("app_icon", limit: NotifyLimits.shortStringBytes)
        call.summary = try text("summary", limit: NotifyLimits.summaryBytes)
        call.body = try text("body", limit: NotifyLimits.bodyBytes)
        let (actions, actionCount) = try message.strings(limit: NotifyLimits.actionStrings, bytes: NotifyLimits.shortStringBytes)
        if actionCount > actions.count { notes.append("\(actionCount) action strings; kept the first \(actions.count)") }
        call.actions = actions
        let (hints, hintCount) = try message.hints(limit: NotifyLimits.hints, bytes: NotifyLimits.shortStringBytes)
        if hintCount > NotifyLimits.hints { notes.append("\(hintCount) hints; read the first \(NotifyLimits.hints)") }
        call.hints = hints
        call.expireTimeout = try message.int32()

        let uid = try senderUID(sender)
        let now = MonotonicClock.seconds
        let replacing = registry.plan(call, uid: uid).replacing != nil
        // Its notifications still waiting for nookd count as live too.
        let live = replacing ? 0 : registry.liveCount(sender: sender) + waiting.reduce(0) { count, work in
            if case .notify(let notify) = work, notify.caller.sender == sender { count + 1 } else { count }
        }
        if let refusal = limits.admit(sender, now: now, live: live) {
            logger.warning("refused a notification from \(sender) (uid \(uid)): \(refusal)")
            try message.replyError(Self.errorLimitsExceeded, refusal)
            return
        }
        if let stalled = stalledFor(now: now) {
            let text = "nookd has not answered for \(Self.seconds(stalled.rounded())) (it is stopped or stalled); the notification was not sent"
            logger.warning("refused a notification from \(sender): \(text)")
            try message.replyError(Self.errorFailed, text)
            return
        }
        guard waiting.count < Self.waitingLimit else {
            let text = "\(waiting.count) notifications are already waiting for nookd"
            logger.warning("refused a notification from \(sender): \(text)")
            try message.replyError(Self.errorLimitsExceeded, text)
            return
        }
        let caller = Caller(message, sender: sender, deadline: now + options.timeout)
        waiting.append(.notify(NotifyWork(caller: caller, call: call.compacted(), uid: uid, notes: notes)))
        pump()
    }

    /// Answered at once: the cancel follows in line, behind any Notify still waiting for nookd.
    func close(_ message: BusMessage) throws(SystemCallError) {
        let sender = message.sender ?? ""
        let id = try message.uint32()
        let uid = try senderUID(sender)
        if let record = registry.record(id), record.uid != uid, uid != 0 {
            logger.warning("\(sender) (uid \(uid)) tried to close notification \(id) of uid \(record.uid)")
            try message.replyError(Self.errorAccessDenied, "notification \(id) was sent by another user")
            return
        }
        // An id that is gone: the spec's answer is nothing to do, not an error clients see. One
        // already closing, or whose close is waiting, needs nothing more (a client repeating
        // the call while nookd is stopped adds nothing to the line).
        let queued = waiting.contains { if case .close(let waitingID, _) = $0 { waitingID == id } else { false } }
        if let record = registry.record(id), record.closing == nil, !queued {
            waiting.append(.close(id: id, uid: uid))
            pump()
        }
        try message.reply { _ throws(SystemCallError) in }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Peer">
          <method name="Ping"/>
          <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.Notifications">
          <method name="GetCapabilities"><arg name="capabilities" type="as" direction="out"/></method>
          <method name="Notify">
           <arg name="app_name" type="s" direction="in"/>
           <arg name="replaces_id" type="u" direction="in"/>
           <arg name="app_icon" type="s" direction="in"/>
           <arg name="summary" type="s" direction="in"/>
           <arg name="body" type="s" direction="in"/>
           <arg name="actions" type="as" direction="in"/>
           <arg name="hints" type="a{sv}" direction="in"/>
           <arg name="expire_timeout" type="i" direction="in"/>
           <arg name="id" type="u" direction="out"/>
          </method>
          <method name="CloseNotification"><arg name="id" type="u" direction="in"/></method>
          <method name="GetServerInformation">
           <arg name="name" type="s" direction="out"/>
           <arg name="vendor" type="s" direction="out"/>
           <arg name="version" type="s" direction="out"/>
           <arg name="spec_version" type="s" direction="out"/>
          </method>
          <signal name="NotificationClosed"><arg name="id" type="u"/><arg name="reason" type="u"/></signal>
          <signal name="ActionInvoked"><arg name="id" type="u"/><arg name="action_key" type="s"/></signal>
         </interface>
        </node>
        """
}
