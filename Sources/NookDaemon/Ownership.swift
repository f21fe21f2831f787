#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookConfig
import NookProtocol
import NookSystem

/// Who may change an activity someone else sent (U3): its sender, root, nookd's own user and
/// members of the configured admin group. The inputs at the device (GPIO dismiss and open) do
/// not go through the socket and always act.
struct OwnershipPolicy: Sendable {
    /// The admin group's id and its members by name (the group database's view at start; a
    /// peer's supplementary groups are not in `SO_PEERCRED`).
    var adminGID: UInt32?
    var adminMembers: Set<String> = []
    var adminGroup: String?
    /// The uids of `daemon.relay_users`: only their stated sender names have a share of a queue
    /// each (Q16); any other program's stated names count in its uid's share, so a local
    /// program cannot take many shares by stating many names.
    var relayUIDs: Set<UInt32> = []

    /// The user nook-http runs as, a relay unless `daemon.relay_users` says otherwise.
    static let defaultRelayUser = "nook-http"

    init(adminGroup: String?, relayUsers: [String]? = nil) throws(DaemonError) {
        self.adminGroup = adminGroup
        if let relayUsers {
            for name in relayUsers {
                if let user = getpwnam(name) {
                    relayUIDs.insert(user.pointee.pw_uid)
                } else if let uid = UInt32(name) {
                    relayUIDs.insert(uid)
                } else {
                    throw DaemonError("daemon.relay_users: no user named '\(name)' in the user database (a uid may be given as a number)")
                }
            }
        } else if let user = getpwnam(Self.defaultRelayUser) {
            relayUIDs.insert(user.pointee.pw_uid)
        }
        guard let adminGroup else { return }
        guard let group = getgrnam(adminGroup) else {
            throw DaemonError("daemon.admin_group: no group named '\(adminGroup)' in the group database")
        }
        adminGID = group.pointee.gr_gid
        var member = group.pointee.gr_mem
        while let name = member?.pointee {
            adminMembers.insert(String(cString: name))
            member = member?.successor()
        }
    }

    /// Acts on every activity: root, nookd's own user, the admin group.
    func isAdmin(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == geteuid() { return true }
        guard let adminGID else { return false }
        if peer.gid == adminGID { return true }
        guard let name = userName(of: peer.uid) else { return false }
        return adminMembers.contains(name)
    }

    /// Nil if `peer` may make a change to the whole device (`operation`: suspend, quiet,
    /// focus, home …): it reaches everyone's cards, so only an admin may.
    func deviceRefusal(of operation: String, by peer: PeerCredentials) -> ProtocolError? {
        guard !isAdmin(peer) else { return nil }
        let admin = adminGroup.map { ", or a member of group '\($0)' (daemon.admin_group)" } ?? " (set daemon.admin_group to let a group do it)"
        return ProtocolError(.forbidden, field: "op",
                             "uid \(peer.uid) may not \(operation): it acts on everyone's cards; only root, nookd's own user\(admin) may")
    }

    /// Nil if `peer` may update, cancel or dismiss `activity`, else the refusal naming whose it is.
    /// `isAdmin`, when known, spares the group database look-up (inside the queue's actor).
    /// `name`: whom a relaying client states it acts for (a request's `sender`): then the
    /// activity must be one that uid sent under that name, and the uid's own admin standing
    /// does not count, as the relay speaks for someone it trusts less than itself.
    func refusal(of operation: String, on activity: NookActivity, by peer: PeerCredentials, actingFor name: String? = nil,
                 isAdmin known: Bool? = nil) -> ProtocolError? {
        if let name { return relayRefusal(of: operation, on: activity, by: peer, actingFor: name) }
        // Activities made in-process or journalled before senders were recorded have no owner.
        guard let owner = activity.sender, owner.uid != peer.uid, !(known ?? isAdmin(peer)) else { return nil }
        let admin = adminGroup.map { ", or a member of group '\($0)' (daemon.admin_group)" } ?? " (set daemon.admin_group to let a group act on all)"
        return ProtocolError(.forbidden, field: "activity",
                             "uid \(peer.uid) may not \(operation) activity \(activity.id): it was sent by uid \(owner.uid); only its sender, root\(admin) may")
    }

    /// A stated sender's refusal: nil only for the cards `peer` sent under `name`.
    private func relayRefusal(of operation: String, on activity: NookActivity, by peer: PeerCredentials, actingFor name: String) -> ProtocolError? {
        if let owner = activity.sender, owner.uid == peer.uid, owner.relayed, owner.name == name { return nil }
        let whose: String
        switch activity.sender {
        case nil: whose = "nookd itself"
        case let owner? where owner.uid == peer.uid && owner.relayed: whose = owner.name.map { "'\($0)'" } ?? "this uid without a stated sender"
        case let owner? where owner.uid == peer.uid: whose = "this uid's process \(owner.name.map { "'\($0)'" } ?? "") without a stated sender"
        case let owner?: whose = "uid \(owner.uid)"
        }
        return ProtocolError(.forbidden, field: "activity",
                             "'\(name)' (relayed by uid \(peer.uid)) may not \(operation) activity \(activity.id): it was sent by \(whose); a stated sender acts only on its own cards")
    }
}

extension OwnershipPolicy {
    /// Nil if `peer` may replace or remove the app `name` that `owner` set (U3, A1), by the
    /// rules a card has: its sender (under the name it stated, if it stated one), root, nookd's
    /// own user and the admin group; a relaying client only on the apps it set under `stated`.
    func appRefusal(of operation: String, app name: String, owner: NookSender?, by peer: PeerCredentials,
                    actingFor stated: String?, isAdmin known: Bool? = nil) -> ProtocolError? {
        if let stated {
            if let owner, owner.uid == peer.uid, owner.relayed, owner.name == stated { return nil }
            return ProtocolError(.forbidden, field: "name",
                                 "'\(stated)' (relayed by uid \(peer.uid)) may not \(operation) app '\(name)': \(whose(owner, peer: peer)); a stated sender acts only on its own apps")
        }
        guard let owner, owner.uid != peer.uid, !(known ?? isAdmin(peer)) else { return nil }
        let admin = adminGroup.map { ", or a member of group '\($0)' (daemon.admin_group)" } ?? " (set daemon.admin_group to let a group act on all)"
        return ProtocolError(.forbidden, field: "name",
                             "uid \(peer.uid) may not \(operation) app '\(name)': it was set by uid \(owner.uid); only its sender, root\(admin) may")
    }

    private func whose(_ owner: NookSender?, peer: PeerCredentials) -> String {
        switch owner {
        case nil: "it was set by nookd itself"
        case let owner? where owner.uid == peer.uid && owner.relayed: "it was set by " + (owner.name.map { "'\($0)'" } ?? "this uid without a stated sender")
        case let owner? where owner.uid == peer.uid: "it was set by this uid's process \(owner.name.map { "'\($0)' " } ?? "")without a stated sender"
        case let owner?: "it was set by uid \(owner.uid)"
        }
    }
}
