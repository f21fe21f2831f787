#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NookActivities
import NookDisplay

/// What the glass shows when no activity is on it (R4).
public enum HomeContent: Hashable, Sendable, CustomStringConvertible {
    /// The local time, `HH:MM`, with the date under it. The default.
    case clock
    /// The theme's background only.
    case blank
    /// A status line set over IPC.
    case text(String)
    /// A character grid from an LCDproc client (E8), set by `nook-lcdproc`.
    case glance(NookGlance)
    /// The mood light (M1, AWTRIX's `moodlight`): the whole glass one colour, `0xRRGGBB`.
    case light(UInt32)

    public var description: String {
        switch self {
        case .clock: "clock"
        case .blank: "blank"
        case .text(let text): "text: \(text)"
        case .glance(let glance): "glance \(glance.columns)x\(glance.rows)"
        case .light(let color): "light \(Self.hex(color))"
        }
    }

    /// `#rrggbb`.
    public static func hex(_ color: UInt32) -> String { NookTint(rgb: color).description }

    /// Whether the glass stays lit with it however long nothing happens: a mood light is a lamp,
    /// not content to blank after `display.blank_after_s`.
    public var isLamp: Bool {
        if case .light = self { true } else { false }
    }
}

/// Wall-clock time of day for the home clock; the queue never sees it (it runs on a monotonic clock).
public struct LocalTime: Hashable, Sendable {
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// 0 = Sunday.
    public var weekday: Int
    public var day: Int
    /// 1 = January.
    public var month: Int
    /// The part of the second gone by (0 where a test gives whole seconds).
    public var nanosecond: Int

    public init(hour: Int, minute: Int, second: Int = 0, weekday: Int, day: Int, month: Int, nanosecond: Int = 0) {
        (self.hour, self.minute, self.second, self.weekday, self.day, self.month) = (hour, minute, second, weekday, day, month)
        self.nanosecond = nanosecond
    }

    /// The system's local time (`clock_gettime` and `localtime_r`, honouring `TZ` and
    /// `/etc/localtime`).
    public static func now() -> LocalTime {
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        var seconds = wall.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return LocalTime(hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec),
                         weekday: Int(parts.tm_wday), day: Int(parts.tm_mday), month: Int(parts.tm_mon) + 1,
                         nanosecond: Int(wall.tv_nsec))
    }

    /// How long from this time until a millisecond into the next minute. Every once-a-minute
    /// timer of nookd (the clock, quiet hours) sleeps this long, so they all fall due at one
    /// instant and an idle nookd wakes once a minute, not once per timer; the
    /// millisecond keeps a wake that comes a hair early from finding the old minute.
    public var untilNextMinute: Duration {
        .seconds(60 - min(59, second)) - .nanoseconds(nanosecond) + .milliseconds(1)
    }

    var clockText: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    var dateText: String {
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                      "September", "October", "November", "December"]
        return "\(weekdays[weekday % 7]) \(day) \(months[(month - 1) % 12])"
    }
}

/// Draws the home content for a panel (R4).
public struct HomeRenderer: Sendable {
    public var theme: Theme

    public init(theme: Theme) {
        self.theme = theme
    }

    public func render(_ content: HomeContent, size: PixelSize, time: LocalTime) -> Frame {
        if case .light(let color) = content { return Frame(width: size.width, height: size.height, fill: 0xFF00_0000 | (color & 0xFF_FFFF)) }
        var frame = Frame(width: size.width, height: size.height, fill: theme.background.pixel)
        guard content != .blank else { return frame }
        Canvas.draw(into: &frame) { canvas in
            let (width, height) = (Double(size.width), Double(size.height))
            let unit = CardRenderer.arrangement(for: size) == .wide ? height : min(height, width / 1.6)
            switch content {
            case .blank, .light:
                break
            case .clock:
                let clock = canvas.layoutText(time.clockText, family: theme.fontFamily, weight: .bold,
                                              pixelSize: 0.36 * unit, maxWidth: width * 0.9, maxLines: 1)
                let date = canvas.layoutText(time.dateText, family: theme.fontFamily, weight: .regular,
                                             pixelSize: 0.09 * unit, maxWidth: width * 0.9, maxLines: 1)
                let (clockSize, dateSize) = (clock.size, date.size)
                let top = (height - clockSize.height - dateSize.height) / 2
                clock.draw(x: (width - clockSize.width) / 2, y: top, color: theme.primaryText)
                date.draw(x: (width - dateSize.width) / 2, y: top + clockSize.height, color: theme.secondaryText)
            case .text(let text):
                let line = canvas.layoutText(text, family: theme.fontFamily, weight: .regular,
                                             pixelSize: 0.12 * unit, maxWidth: width * 0.9, maxLines: 2)
                let lineSize = line.size
                line.draw(x: (width - lineSize.width) / 2, y: (height - lineSize.height) / 2, color: theme.secondaryText)
            case .glance(let glance):
                GlanceRenderer(theme: theme).draw(glance, on: canvas, size: size)
            }
        }
        return frame
    }
}
