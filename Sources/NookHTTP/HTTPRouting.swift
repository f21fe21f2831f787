import NookProtocol

/// What a token may do (H4): `publish` creates and changes cards, `read` sees status, pending,
/// history and the glass, `admin` also suspends, resumes, sets quiet and clears history.
public enum HTTPScope: String, Sendable, CaseIterable, Comparable {
    case read, publish, admin

    public static func < (lhs: HTTPScope, rhs: HTTPScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Who is asking: the token's name (the activity's sender, U3) and its scopes. Requests
/// without a token from loopback, when no token file is configured, are `local` with every scope.
public struct HTTPCaller: Sendable, Equatable {
    public var name: String
    public var scopes: Set<HTTPScope>
    public init(name: String, scopes: Set<HTTPScope>) { (self.name, self.scopes) = (name, scopes) }

    /// The caller as nookd records the sender: its token's name, cut to what nookd takes.
    public var senderName: String {
        var name = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        while name.utf8.count > SenderPayload.maximumNameBytes { name.removeLast() }
        return name.isEmpty ? "nook-http" : name
    }

    /// Whom nook-http tells nookd it acts for when it changes cards (U3): a token without the
    /// admin scope reaches only the cards sent under its own name; an admin token (and the
    /// tokenless loopback caller) states none and reaches every card nook-http sent.
    public var statedSender: String? { scopes.contains(.admin) ? nil : senderName }

    /// The request for `operation` on this caller's behalf, stating ``statedSender`` where the
    /// operation takes it (an enqueue names its sender in the activity instead).
    public func request(_ operation: NookOperation) -> Request {
        guard let sender = statedSender, operation.name != .enqueue, operation.name.entry.fields.contains("sender") else {
            return Request(id: nil, operation: operation)
        }
        return Request(id: nil, operation: operation, sender: sender)
    }
}

/// Why nookd gave no answer to a call.
public enum NookdCallError: Error, Sendable, Equatable {
    /// nookd's socket is not there or refused us: answered 503 with `Retry-After`.
    case unavailable(String)
    /// nookd answered `ok: false`: its error object, passed on (the status chosen from its code).
    case refused(JSONValue)
    /// The link to nookd was lost after nookd may have read a request that changes something,
    /// before it answered: it may or may not have been done. Answered 504 `outcome_unknown`,
    /// never 503, which tells a sender that nothing was done and a retry is safe.
    case outcomeUnknown(String)
}

/// nook-http's way to nookd. Every call and every `done` runs on the server's one loop thread;
/// answers may come later (nookd acknowledges a batch once it is durable, J1), so handlers
/// never block.
public protocol NookdCalls: AnyObject {
    /// Sends one request; `done` gets nookd's whole answer line (`ok: true`), or why not.
    func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void)
    /// As ``call(_:done:)`` for a caller that needs only to know whether nookd accepted the call:
    /// the link need not read an accepted answer (`/healthz`'s status answer is a kilobyte).
    func callForOutcome(_ request: Request, done: @escaping (Result<Void, NookdCallError>) -> Void)
    /// Calls made and not yet written, waiting for room among the calls in flight.
    var callsWaiting: Int { get }
}

extension NookdCalls {
    public var callsWaiting: Int { 0 }

    public func callForOutcome(_ request: Request, done: @escaping (Result<Void, NookdCallError>) -> Void) {
        call(request) { done($0.map { _ in }) }
    }
}

/// One request being answered. Handlers answer exactly once, now or from a `done` later.
public protocol HTTPExchange: AnyObject {
    var request: HTTPRequest { get }
    var caller: HTTPCaller { get }
    /// False once the client has gone: a handler holding a stream stops sending.
    var isOpen: Bool { get }
    func respond(_ response: HTTPResponse)
    /// Starts an answer of unknown length (chunked): a `multipart/x-mixed-replace` stream of
    /// frames. Each `send` is a part that replaces the ones before it: a part the client is not
    /// ready for (it has not read the one before) waits in place of any part that waited before
    /// it, so a slow client gets the newest part when it reads, never a queue of old ones, and
    /// never holds the sender up. `send` returns false once the client has gone.
    func startStream(status: Int, headers: [(name: String, value: String)]) -> any HTTPStreamWriter
    /// Who asks, for a share of something bounded (the live view's viewers).
    var client: HTTPClient { get }
    /// A handler that holds its exchange open (a stream, a wait for the glass) says here how it
    /// ends at once when the server ends it early: `end` runs at most once, on the loop thread,
    /// and must answer or finish the stream then and there.
    func whenEndedEarly(_ end: @escaping (HTTPEarlyEnd) -> Void)
}

extension HTTPExchange {
    public var client: HTTPClient { HTTPClient(address: "", token: nil) }
    public func whenEndedEarly(_ end: @escaping (HTTPEarlyEnd) -> Void) {}
}

/// Why the server ends an exchange that its handler holds open.
public enum HTTPEarlyEnd: Sendable, Equatable {
    /// SIGTERM or SIGINT: nook-http stops, and a wait would hold the stop up.
    case stopping
    /// SIGHUP read a token file that no longer grants the token the route's scope.
    case accessWithdrawn
}

/// A client, as the shares of bounded things count it: its address (for a request a proxy on
/// the board passed on, the address the proxy names) and the name of its token (nil without one).
public struct HTTPClient: Sendable, Hashable {
    public var address: String
    public var token: String?
    public init(address: String, token: String?) { (self.address, self.token) = (address, token) }
}

public protocol HTTPStreamWriter: AnyObject {
    @discardableResult func send(_ bytes: [UInt8]) -> Bool
    func finish()
}

/// Whose senders a route is for: the shape its requests and answers take, as the route lists
/// of docs/http.md and nook-http(8) name it.
public enum HTTPRouteShape: String, Sendable, CaseIterable {
    /// Nook's own: the JSON API, the live view, the page and `/healthz`.
    case native
    case ntfy
    case gotify = "Gotify"
    case awtrix = "AWTRIX"
    /// Alertmanager's and Grafana's webhooks.
    case alerts
    /// LaMetric Time's local API v2 (M4).
    case lametric = "LaMetric"
}

/// One route: a method and a path pattern (`/api/v1/activities/{id}`), the scope it needs,
/// the shape it speaks, and its handler, which gets the pattern's parameters by name.
public struct HTTPRoute {
    public var method: String
    public var pattern: String
    public var scope: HTTPScope
    public var shape: HTTPRouteShape
    /// Served to anyone who can connect, without a token: only for answers that hold no data
    /// (the page's own files), which a browser must load before it has a token to send.
    public var isPublic: Bool
    public var handler: (_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) -> Void
    /// Which paths of its pattern the route takes: nil when it takes these parameters, else the
    /// 404 it would answer (ntfy's `/{topic}` takes no `favicon.ico`). A route that does not
    /// take a path is not named in a 405's `Allow` for it; nil takes every match.
    public var refusing: ((_ parameters: [String: String], _ rawPath: String) -> HTTPAPIError?)?
    /// Whether a request to this route changes something: every method's but GET's, and a GET
    /// that does (ntfy's publish by GET). Such a GET is not answered for HEAD, and is refused
    /// from another site's page as a POST is (``HTTPAccess``).
    public var changesSomething: Bool
    /// Served to every caller whose token the board knows, whatever its scopes (`scope` is then
    /// what a token file read again is checked against): ntfy's `/v1/account` and `/TOPIC/auth`,
    /// which say what the caller may do rather than need one scope.
    public var anyScope: Bool

    /// - Parameter changesSomething: nil: every method but GET and HEAD changes something.
    public init(_ method: String, _ pattern: String, scope: HTTPScope, speaks shape: HTTPRouteShape = .native, isPublic: Bool = false,
                anyScope: Bool = false,
                changesSomething: Bool? = nil, refusing: ((_ parameters: [String: String], _ rawPath: String) -> HTTPAPIError?)? = nil,
                handler: @escaping (_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) -> Void) {
        (self.method, self.pattern, self.scope, self.shape, self.isPublic, self.handler) = (method, pattern, scope, shape, isPublic, handler)
        (self.refusing, self.anyScope) = (refusing, anyScope)
        self.changesSomething = changesSomething ?? (method != "GET" && method != "HEAD")
    }
}
