import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

extension MQTTBridge {
    /// Clears every retained message the bridge published (discovery, state, availability,
    /// AWTRIX's stats),
    /// so Home Assistant forgets the device: `nook-mqtt --remove-discovery`, run on uninstall.
    public static func removeRetained(config: MQTTConfig, logger: Logger) throws(BridgeError) {
        let topics = Topics(prefix: config.prefix, device: config.device, awtrixPrefix: config.awtrixPrefix)
        let discovery = Discovery(topics: topics, prefix: config.discoveryPrefix, identity: config.identity)
        let connection = try connection(config, clientID: config.effectiveClientID + "-remove", cleanSession: true, will: nil)
        var refused: Int32?
        var ready = false
        var acknowledged = 0
        connection.onConnect = { code, _ in if code == 0 { ready = true } else { refused = code } }
        connection.onPublished = { _ in acknowledged += 1 }
        connection.onLog = { error, text in if error { logger.error("libmosquitto: \(text)") } }
        do throws(MQTTError) { try connection.connect() } catch { throw BridgeError(error.description) }
        let clear = discovery.entities.map(discovery.topic) + [topics.state, topics.availability] + topics.awtrixStats
        var published = false
        let deadline = MonotonicClock.seconds + 10
        while MonotonicClock.seconds < deadline {
            if let refused { throw BridgeError("the broker refused the connection: \(connection.refusal(refused))") }
            if ready, !published {
                for topic in clear {
                    do throws(MQTTError) { try connection.publish(topic, [], qos: 1, retain: true) } catch { throw BridgeError(error.description) }
                }
                published = true
            }
            if published, acknowledged >= clear.count {
                connection.disconnect()
                connection.writePackets()
                logger.info("cleared \(clear.count) retained topics (Home Assistant discovery, state, availability)")
                return
            }
            let fd = connection.descriptor
            guard fd >= 0 else { throw BridgeError("lost the connection to \(config.host):\(config.effectivePort)") }
            var entry = [pollfd(fd: fd, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)]
            _ = try? pollDescriptors(&entry, timeoutMilliseconds: 100)
            if entry[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { connection.readPackets() }
            connection.housekeeping()
            if connection.wantsWrite { connection.writePackets() }
        }
        throw BridgeError("the broker at \(config.host):\(config.effectivePort) did not acknowledge within 10 s")
    }
}
