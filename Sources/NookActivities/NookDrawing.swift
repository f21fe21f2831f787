/// An app's drawing (A1, AWTRIX's `draw`): pixels, lines, rectangles, circles, text and
/// bitmaps on AWTRIX's 32x8 matrix, drawn over the app in order. Each renderer scales the
/// 32x8 onto its display (1:1 on a 32x8 matrix); what falls outside the 32x8 is clipped, as
/// AWTRIX clips it to its matrix.
public struct NookDrawing: Hashable, Sendable {
    /// The matrix the commands' coordinates are on.
    public static let width = 32
    public static let height = 8

    /// One command; colours are `0xRRGGBB`.
    public enum Command: Hashable, Sendable {
        case pixel(x: Int, y: Int, color: UInt32)
        case line(x0: Int, y0: Int, x1: Int, y1: Int, color: UInt32)
        case rectangle(x: Int, y: Int, width: Int, height: Int, color: UInt32, filled: Bool)
        case circle(x: Int, y: Int, radius: Int, color: UInt32, filled: Bool)
        /// Text whose top-left corner is at (`x`, `y`), in the display's small font.
        case text(x: Int, y: Int, text: String, color: UInt32)
        /// `width * height` pixels row by row (fewer: the rest black, as AWTRIX leaves them).
        case bitmap(x: Int, y: Int, width: Int, height: Int, pixels: [UInt32])
    }

    public var commands: [Command]

    public init(_ commands: [Command]) {
        self.commands = commands
    }

    public enum Limits {
        /// Commands in one drawing: AWTRIX warns that many freeze it; a drawing of more is no glance.
        public static let commands = 256
        /// A bitmap covers at most the whole matrix.
        public static let bitmapPixels = NookDrawing.width * NookDrawing.height
        /// Coordinates and sizes: well past the matrix on either side, so a sender's shape
        /// that starts off the edge is drawn clipped, and nothing costs more than the matrix.
        public static let coordinates = -64...64
        public static let text = NookTextLimit(characters: 64, bytes: 256)
    }

    /// The drawing without its text, as 32x8 colours row by row (nil: nothing drawn there).
    /// Text is each renderer's own (``texts``): its font, its scale.
    public var raster: [UInt32?] {
        var pixels = [UInt32?](repeating: nil, count: Self.width * Self.height)
        func plot(_ x: Int, _ y: Int, _ color: UInt32) {
            guard x >= 0, x < Self.width, y >= 0, y < Self.height else { return }
            pixels[y * Self.width + x] = color
        }
        for command in commands {
            switch command {
            case .pixel(let x, let y, let color):
                plot(x, y, color)
            case .line(let x0, let y0, let x1, let y1, let color):
                Self.line(from: (x0, y0), to: (x1, y1)) { plot($0, $1, color) }
            case .rectangle(let x, let y, let width, let height, let color, let filled):
                // Only the rows and columns on the matrix: a big rectangle costs what the matrix does.
                let (rows, columns) = (max(y, 0)..<max(max(y, 0), min(y + height, Self.height)), max(x, 0)..<max(max(x, 0), min(x + width, Self.width)))
                for row in rows {
                    for column in columns where filled || row == y || row == y + height - 1 || column == x || column == x + width - 1 {
                        plot(column, row, color)
                    }
                }
            case .circle(let x, let y, let radius, let color, let filled):
                Self.circle(x, y, radius, filled: filled) { plot($0, $1, color) }
            case .text:
                continue
            case .bitmap(let x, let y, let width, let height, let bitmap):
                for row in 0..<max(0, height) where (0..<Self.height).contains(y + row) {
                    for column in 0..<max(0, width) where (0..<Self.width).contains(x + column) {
                        let index = row * width + column
                        plot(x + column, y + row, index < bitmap.count ? bitmap[index] : 0)
                    }
                }
            }
        }
        return pixels
    }

    /// The text commands in order, for the renderer to draw over ``raster`` in its font. A
    /// text drawn before a shape that covers it is drawn over it instead: text is drawn last.
    public var texts: [(x: Int, y: Int, text: String, color: UInt32)] {
        commands.compactMap { command in
            if case .text(let x, let y, let text, let color) = command { return (x, y, text, color) }
            return nil
        }
    }

    /// Bresenham's line, both ends included.
    static func line(from start: (Int, Int), to end: (Int, Int), _ plot: (Int, Int) -> Void) {
        var (x, y) = start
        let (dx, dy) = (abs(end.0 - x), -abs(end.1 - y))
        let (sx, sy) = (x < end.0 ? 1 : -1, y < end.1 ? 1 : -1)
        var error = dx + dy
        while true {
            plot(x, y)
            if x == end.0, y == end.1 { return }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += sx }
            if doubled <= dx { error += dx; y += sy }
        }
    }

    /// The midpoint circle (the outline AWTRIX's graphics library draws), or every point
    /// within the radius when filled.
    static func circle(_ cx: Int, _ cy: Int, _ radius: Int, filled: Bool, _ plot: (Int, Int) -> Void) {
        guard radius > 0 else { plot(cx, cy); return }
        if filled {
            for dy in -radius...radius where (0..<Self.height).contains(cy + dy) {
                for dx in -radius...radius where (0..<Self.width).contains(cx + dx) && dx * dx + dy * dy <= radius * radius + radius { plot(cx + dx, cy + dy) }
            }
            return
        }
        var (x, y, error) = (radius, 0, 1 - radius)
        while x >= y {
            for (px, py) in [(x, y), (y, x), (-y, x), (-x, y), (-x, -y), (-y, -x), (y, -x), (x, -y)] { plot(cx + px, cy + py) }
            y += 1
            if error < 0 { error += 2 * y + 1 } else { x -= 1; error += 2 * (y - x) + 1 }
        }
    }
}

extension NookDrawing {
    /// Checks the bounds every way in keeps (``Limits``); the error names the command by index.
    public func validate() throws(NookActivityValidationError) {
        guard commands.count <= Limits.commands else {
            throw NookActivityValidationError(field: "draw", problem: "must have at most \(Limits.commands) commands, got \(commands.count)")
        }
        for (index, command) in commands.enumerated() {
            let field = "draw[\(index)]"
            let numbers: [Int]
            switch command {
            case .pixel(let x, let y, _): numbers = [x, y]
            case .line(let x0, let y0, let x1, let y1, _): numbers = [x0, y0, x1, y1]
            case .rectangle(let x, let y, let width, let height, _, _): numbers = [x, y, width, height]
            case .circle(let x, let y, let radius, _, _): numbers = [x, y, radius]
            case .text(let x, let y, let text, _):
                numbers = [x, y]
                if let problem = Limits.text.problem(with: text) { throw NookActivityValidationError(field: field, problem: "text \(problem)") }
                // One line that reads as what it is, as an app's name must (a U+202E turns the rest around).
                if text.unicodeScalars.contains(where: NookApp.isHidden) {
                    throw NookActivityValidationError(field: field, problem: "text must not contain \(NookApp.hiddenKinds), got '\(NookApp.revealed(text))'")
                }
            case .bitmap(let x, let y, let width, let height, let pixels):
                numbers = [x, y, width, height]
                guard width >= 0, height >= 0, width * height <= Limits.bitmapPixels else {
                    throw NookActivityValidationError(field: field, problem: "a bitmap is at most \(Limits.bitmapPixels) pixels (the 32x8), got \(width)x\(height)")
                }
                guard pixels.count <= width * height else {
                    throw NookActivityValidationError(field: field, problem: "a \(width)x\(height) bitmap has \(width * height) pixels, got \(pixels.count)")
                }
                if let bad = pixels.first(where: { $0 > 0xFF_FFFF }) {
                    throw NookActivityValidationError(field: field, problem: "bitmap colours are 0xRRGGBB numbers (0 to 16777215), got \(bad)")
                }
            }
            if let bad = numbers.first(where: { !Limits.coordinates.contains($0) }) {
                throw NookActivityValidationError(field: field, problem: "coordinates and sizes must be from \(Limits.coordinates.lowerBound) "
                                                  + "to \(Limits.coordinates.upperBound) (the matrix is 32x8), got \(bad)")
            }
        }
    }
}
