/// The character display a client is told about in `hello`, and what LCDd reports for it.
public struct LCDGrid: Hashable, Sendable {
    public var width: Int
    public var height: Int
    /// Pixels per cell, which clients use to size bars (`hbar` lengths are in pixels).
    public var cellWidth: Int
    public var cellHeight: Int

    public init(width: Int, height: Int, cellWidth: Int = 5, cellHeight: Int = 8) {
        (self.width, self.height, self.cellWidth, self.cellHeight) = (width, height, cellWidth, cellHeight)
    }
}

/// LCDd's screen priority classes, lowest first (`server/screen.h`).
public enum LCDPriority: Int, Comparable, Sendable, CaseIterable {
    case hidden, background, info, foreground, alert, input

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    var name: String { ["hidden", "background", "info", "foreground", "alert", "input"][rawValue] }

    /// `screen_set -priority`: a class name, or LCDd's old numbers (1–64 foreground, up to 191
    /// info, above background). Nil for anything else.
    static func parse(_ text: String) -> LCDPriority? {
        let number = CLike.atoi(text)
        if number > 0 { return number <= 64 ? .foreground : number < 192 ? .info : .background }
        return allCases.first { $0.name == text }
    }
}

public enum LCDWidgetType: String, Sendable, CaseIterable {
    case string, hbar, vbar, icon, title, scroller, frame, num
}

/// One widget as the client last set it. Coordinates are LCDd's: 1-based cells.
struct LCDWidget: Sendable {
    let id: String
    let type: LCDWidgetType
    var x = 1, y = 1
    var left = 1, top = 1, right = 0, bottom = 0
    var width = 0, height = 0
    /// Bars: length in pixels. Scroller and frame: the direction letter.
    var length = 0
    var direction: UInt8 = 0
    var speed = 0
    var text: String?
    var icon: String?
    /// A frame's own widgets (`widget_add … -in FRAME`).
    var children: [LCDWidget] = []

    init(id: String, type: LCDWidgetType) { (self.id, self.type) = (id, type) }
}

/// One client screen (`screen_add`), with LCDd's defaults.
struct LCDScreen: Sendable {
    let id: String
    var name: String?
    var priority: LCDPriority = .info
    /// In frames of 1/8 s, as LCDd counts (its default is 32, four seconds).
    var duration: Int
    /// Frames left while shown; -1: none.
    var timeout = -1
    var widgets: [LCDWidget] = []
    /// Set while the screen sits at `alert` or `foreground` and its card was sent.
    var carded = false

    init(id: String, duration: Int) { (self.id, self.duration) = (id, duration) }

    var widgetCount: Int { widgets.reduce(0) { $0 + 1 + $1.children.count } }

    /// LCDd's `screen_find_widget`: widgets in order, looking inside each frame as it passes.
    func locate(_ id: String) -> (Int, Int?)? {
        for (index, widget) in widgets.enumerated() {
            if widget.id == id { return (index, nil) }
            if widget.type == .frame, let child = widget.children.firstIndex(where: { $0.id == id }) { return (index, child) }
        }
        return nil
    }
}

/// C's `atoi` and the `isdigit` first-character test LCDd applies to coordinates.
enum CLike {
    static func atoi(_ text: String) -> Int {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || (0x09...0x0D).contains(first) { bytes.removeFirst() }
        var negative = false
        if let sign = bytes.first, sign == 0x2B || sign == 0x2D { negative = sign == 0x2D; bytes.removeFirst() }
        var value = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { break }
            value = value &* 10 &+ Int(byte - 0x30)
            if value > Int(Int32.max) { value = Int(Int32.max); break }
        }
        return negative ? -value : value
    }

    static func startsWithDigit(_ text: String) -> Bool {
        guard let first = text.utf8.first else { return false }
        return (0x30...0x39).contains(first)
    }

    /// `strtol(text, &end, 0)` as `output` and `sleep` use it: nil when the text is not
    /// wholly a number; `.outOfRange` when it overflows a long.
    enum Number: Equatable { case value(Int), invalid, outOfRange }

    static func strtol(_ text: String) -> Number {
        var bytes = Array(text.utf8)[...]
        guard !bytes.isEmpty else { return .invalid }
        while let first = bytes.first, first == 0x20 || (0x09...0x0D).contains(first) { bytes.removeFirst() }
        var negative = false
        if let sign = bytes.first, sign == 0x2B || sign == 0x2D { negative = sign == 0x2D; bytes.removeFirst() }
        var base = 10
        if bytes.first == 0x30, bytes.count >= 2, bytes[bytes.startIndex + 1] | 0x20 == 0x78,
           bytes.count >= 3, hexValue(bytes[bytes.startIndex + 2]) != nil {
            base = 16
            bytes.removeFirst(2)
        } else if bytes.first == 0x30 {
            base = 8
        }
        guard !bytes.isEmpty else { return .invalid }
        var value = 0
        var overflow = false
        for byte in bytes {
            guard let digit = hexValue(byte), digit < base else { return .invalid }
            let (product, o1) = value.multipliedReportingOverflow(by: base)
            let (sum, o2) = product.addingReportingOverflow(digit)
            if o1 || o2 { overflow = true }
            value = sum
        }
        if overflow { return .outOfRange }
        return .value(negative ? -value : value)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        default: nil
        }
    }
}
