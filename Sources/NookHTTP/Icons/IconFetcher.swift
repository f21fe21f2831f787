import NookLogging
import NookProtocol
import NookActivities
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// Fetches the LaMetric icon ids nookd finds in no icon directory (M3), on a thread of its
/// own, never on a request's path: it follows nookd's `icons-wanted` stream and GETs each id
/// from `icons.source` over HTTPS into the cache directory, one at a time. The card or app
/// that asked shows its fallback (its answer says the fetcher was asked); what is sent after
/// the file is written shows the icon. An id whose fetch failed is not fetched again for an
/// hour (nookd asks again at most every ten minutes); every outcome is logged with the URL.
/// A nookd that is absent or restarts is asked again with a growing pause, as every bridge does.
public final class IconFetcher: Sendable {
    /// After a failure, an id waits this long before it is fetched again.
    static let failedIDsWait = Duration.seconds(3600)
    /// Failed ids remembered at most (a flood of distinct ids forgets the oldest).
    static let failedIDsKept = 1024
    /// A fetched icon's bytes at most: LaMetric's are a few hundred; nookd takes up to 1 MiB.
    static let largestIcon = 64 << 10

    private let settings: IconSourceSettings
    private let source: IconSourceURL
    private let socketPath: String
    private let logger: Logger

    public init(settings: IconSourceSettings, source: IconSourceURL, socketPath: String, logger: Logger) {
        (self.settings, self.source, self.socketPath, self.logger) = (settings, source, socketPath, logger)
    }

    /// Starts the fetcher's thread; it runs until the process ends.
    public func start() {
        let bounds = "at most \(settings.maximumCount) icons, \(settings.maximumBytes) bytes"
        logger.info("fetching the LaMetric icon ids nookd finds in no icon directory from \(source) into \(settings.directory) (\(bounds))")
        startThread(named: "icon fetcher") { [self] in run() }
    }

    private func run() {
        let client: HTTPTLSClient
        do { client = try HTTPTLSClient() } catch {
            logger.error("cannot fetch icons: TLS: \(error)")
            return
        }
        let cache = IconCache(directory: settings.directory, maximumCount: settings.maximumCount, maximumBytes: settings.maximumBytes)
        do { try cache.prepare() } catch {
            logger.error("cannot fetch icons: icons.directory: \(error)")
            return
        }
        var failed = FailedIDs()
        var backoff = ReconnectBackoff()
        var warned = false
        while true {
            do throws(ClientError) {
                let nookd = try NookClient(path: socketPath)
                nookd.readTimeout = .seconds(10)
                let (answer, _) = try nookd.request(Request(id: .number(1), operation: .iconsWanted), as: IconsWantedAnswer.self)
                nookd.readTimeout = nil
                backoff.reset()
                logger.info(warned ? "following nookd's wanted icons again" : "following nookd's wanted icons")
                warned = false
                checkLooked(in: answer.directories, cache: cache)
                while let line = try nookd.readLine() {
                    guard case .event(_, let event)? = try? ResponseLine.decode(line), let wanted = IconWantedMessage(json: event) else { continue }
                    fetch(wanted, client: client, cache: cache, failed: &failed)
                }
                throw .unreachable("nookd closed the icons-wanted stream")
            } catch {
                if case .daemon(let refusal) = error, refusal.code == .unknownOperation {
                    logger.warning("this nookd has no 'icons-wanted' operation: icons.source is not used")
                    return
                }
                if !warned { logger.warning("cannot follow nookd's wanted icons (\(error)); trying again") }
                warned = true
            }
            var nothing: [pollfd] = []
            _ = try? pollDescriptors(&nothing, timeoutMilliseconds: Int32(backoff.next() * 1000))
        }
    }

    /// A cache nookd does not read is said once a subscription, with the fix.
    private func checkLooked(in directories: [String], cache: IconCache) {
        let canonical = { (path: String) in (try? System.resolvedPath(path)) ?? path }
        guard !directories.map(canonical).contains(canonical(cache.directory)) else { return }
        let listed = directories.isEmpty ? "none" : directories.joined(separator: ", ")
        logger.warning("icons.directory \(cache.directory) is not one of nookd's icon directories (daemon.icon_directories: \(listed)): nookd will not draw the icons fetched; add it there in nook.toml")
    }

    private func fetch(_ wanted: IconWantedMessage, client: HTTPTLSClient, cache: IconCache, failed: inout FailedIDs) {
        let id = wanted.id, url = source.url(for: id)
        if let file = cache.file(for: id) {
            // Fetched, yet nookd looked and did not find it: nookd cannot read it there.
            let question = "is \(cache.directory) one of its daemon.icon_directories, readable by nookd's user?"
            logger.warning("nookd asked for icon \(id), which is in the cache (\(file)): nookd does not read it there; \(question)")
            return
        }
        let now = MonotonicClock.now
        if let since = failed.failure(of: id, at: now) {
            logger.info("icon \(id) from \(url) failed \(since) ago: not fetched again before \(Self.failedIDsWait) have passed")
            return
        }
        do throws(HTTPSGet.Failure) {
            let limit = Duration.seconds(settings.timeoutSeconds)
            let answer = try HTTPSGet(client: client, timeout: limit, exchangeLimit: limit * 4).get(host: source.host, port: source.port, path: source.path(for: id), bodyLimit: Self.largestIcon)
            guard answer.status == 200 else {
                throw .init("the server answered \(answer.status) \(answer.reason.prefix(80))")
            }
            let icon = try FetchedIcon(checking: answer.body, limit: Self.largestIcon)
            let stored: (path: String, removed: [String])
            do { stored = try cache.store(icon, id: id) } catch { throw .init("\(error)") }
            let frames = icon.frames > 1 ? ", \(icon.frames) frames" : ""
            let picture = "\(icon.width)x\(icon.height) \(icon.kind.rawValue.uppercased())\(frames), \(icon.bytes.count) bytes"
            logger.info("fetched icon \(id) from \(url): \(picture), into \(stored.path)")
            if !stored.removed.isEmpty {
                let bounds = "icons.max_count \(cache.maximumCount) or icons.max_bytes \(cache.maximumBytes)"
                logger.info("removed \(stored.removed.joined(separator: ", ")) from \(cache.directory): over \(bounds)")
            }
        } catch {
            failed.add(id, at: now)
            logger.warning("icon \(id) from \(url) \(error.description.hasPrefix("is ") ? "" : "failed: ")\(error); not fetched again for an hour")
        }
    }

    /// The ids whose fetch failed, and when.
    private struct FailedIDs {
        private var at: [String: Duration] = [:]

        /// How long ago `id` failed, if within ``IconFetcher/failedIDsWait``.
        func failure(of id: String, at now: Duration) -> Duration? {
            guard let when = at[id], now - when < IconFetcher.failedIDsWait else { return nil }
            return now - when
        }

        mutating func add(_ id: String, at now: Duration) {
            if at.count >= IconFetcher.failedIDsKept {
                at = at.filter { now - $0.value < IconFetcher.failedIDsWait }
                if at.count >= IconFetcher.failedIDsKept, let oldest = at.min(by: { $0.value < $1.value }) { at[oldest.key] = nil }
            }
            at[id] = now
        }
    }
}
