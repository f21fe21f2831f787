import NookActivities

/// LCDd's icon names (`server/widget.c`, compared without case) and the character Nook draws
/// for each: the glance is text, so icons are Unicode symbols rather than custom LCD glyphs.
enum LCDIcons {
    static let symbols: [(name: String, symbol: Character)] = [
        ("BLOCK_FILLED", "█"), ("HEART_OPEN", "♡"), ("HEART_FILLED", "♥"), ("ARROW_UP", "↑"), ("ARROW_DOWN", "↓"),
        ("ARROW_LEFT", "←"), ("ARROW_RIGHT", "→"), ("CHECKBOX_OFF", "☐"), ("CHECKBOX_ON", "☑"), ("CHECKBOX_GRAY", "▣"),
        ("SELECTOR_AT_LEFT", "▸"), ("SELECTOR_AT_RIGHT", "◂"), ("ELLIPSIS", "…"), ("STOP", "■"), ("PAUSE", "⏸"),
        ("PLAY", "▶"), ("PLAYR", "◀"), ("FF", "⏩"), ("FR", "⏪"), ("NEXT", "⏭"), ("PREV", "⏮"), ("REC", "●"),
    ]

    static func canonicalName(_ name: String) -> String? {
        let upper = name.uppercased()
        return symbols.first { $0.name == upper }?.name
    }

    static func symbol(_ name: String) -> Character { symbols.first { $0.name == name }?.symbol ?? "?" }
}

/// Lays a client screen out on the character grid as LCDd's renderer places widgets (1-based
/// cells, clipped at the edges), producing the ``NookGlance`` nookd draws.
struct LCDComposer {
    let grid: LCDGrid
    /// LCDd frames since start, for scrollers.
    let frame: Int

    static func title(of screen: LCDScreen) -> String? {
        screen.widgets.first { $0.type == .title && $0.text != nil }?.text
    }

    func compose(_ screen: LCDScreen) -> NookGlance {
        var cells = Array(repeating: Array(repeating: Character(" "), count: grid.width), count: grid.height)
        var bars: [NookGlance.Bar] = []
        var titleRow: Int?
        place(screen.widgets, originX: 0, originY: 0, clip: (grid.width, grid.height), cells: &cells, bars: &bars, titleRow: &titleRow)
        func trimmed(_ row: [Character]) -> String {
            var end = row.count
            while end > 0, row[end - 1] == " " { end -= 1 }
            // A client's cell may hold a letter with any number of combining marks.
            return NookGlance.Limits.line(columns: grid.width).clamped(String(row[..<end]))
        }
        return NookGlance(columns: grid.width, rows: grid.height, lines: cells.map(trimmed), titleRow: titleRow, bars: bars)
    }

    /// Places `widgets` with their cell (1, 1) at the 0-based origin, inside a box of `clip`
    /// cells from the origin (a frame's box).
    private func place(_ widgets: [LCDWidget], originX: Int, originY: Int, clip: (Int, Int),
                       cells: inout [[Character]], bars: inout [NookGlance.Bar], titleRow: inout Int?) {
        // The box on the grid: a frame at column or row 0 (or a client's negative numbers)
        // starts off the grid, and nothing may be drawn there.
        let (minX, minY) = (max(0, originX), max(0, originY))
        let maxX = min(grid.width, originX + clip.0)
        let maxY = min(grid.height, originY + clip.1)
        guard minX < maxX, minY < maxY else { return }
        func write(_ text: some Sequence<Character>, column: Int, row: Int) {
            guard row >= minY, row < maxY else { return }
            var column = column
            for character in text {
                if column >= maxX { break }
                if column >= minX, !character.isNewline { cells[row][column] = character }
                column += 1
            }
        }
        for widget in widgets {
            let column = originX + widget.x - 1
            let row = originY + widget.y - 1
            switch widget.type {
            case .string:
                if let text = widget.text { write(text, column: column, row: row) }
            case .title:
                guard let text = widget.text, originY >= 0 else { continue }
                titleRow = originY
                cells[originY] = Array(repeating: " ", count: grid.width)
                write(text, column: minX, row: originY)
            case .hbar, .vbar:
                guard row >= minY, row < maxY, column >= minX, column < maxX, widget.length > 0 else { continue }
                let horizontal = widget.type == .hbar
                let cellPixels = Double(horizontal ? grid.cellWidth : grid.cellHeight)
                let room = Double(horizontal ? maxX - column : row - minY + 1)
                bars.append(NookGlance.Bar(row: row, column: column, length: min(room, Double(widget.length) / cellPixels),
                                           direction: horizontal ? .horizontal : .vertical))
            case .icon:
                if let icon = widget.icon { write([LCDIcons.symbol(icon)], column: column, row: row) }
            case .num:
                // LCDd draws big digits 3 cells wide over the display's height; a glance has
                // real fonts, so the digit sits in the middle row.
                // LCDd draws 0–9 and 10 (a colon) only; anything else draws nothing, which is
                // how lcdproc's BigClock blinks its colon (it sets 11).
                guard (0...10).contains(widget.y) else { continue }
                let digit: Character = widget.y == 10 ? ":" : Character(String(widget.y))
                write([digit], column: column, row: minY + (maxY - minY - 1) / 2)
            case .scroller:
                guard let text = widget.text else { continue }
                let left = originX + widget.left - 1, top = originY + widget.top - 1
                let width = max(1, min(maxX, originX + widget.right) - left)
                let height = max(1, min(maxY, originY + widget.bottom) - top + 1)
                let lines = scrolled(Array(text), width: width, height: height, direction: widget.direction, speed: widget.speed)
                for (offset, line) in lines.prefix(height).enumerated() { write(line.prefix(width), column: left, row: top + offset) }
            case .frame:
                let left = originX + widget.left - 1, top = originY + widget.top - 1
                let box = (max(0, widget.right - widget.left + 1), max(0, widget.bottom - widget.top + 1))
                place(widget.children, originX: left, originY: top, clip: box, cells: &cells, bars: &bars, titleRow: &titleRow)
            }
        }
    }

    /// The part of a scroller's text on view now: LCDd moves it one character every `speed`
    /// frames (or `-speed` characters a frame); `h` and `m` run along one line, `v` through
    /// lines of the box's width.
    private func scrolled(_ text: [Character], width: Int, height: Int, direction: UInt8, speed: Int) -> [[Character]] {
        let step = speed > 0 ? frame / speed : speed < 0 ? frame * -speed : 0
        if direction == UInt8(ascii: "v") {
            var lines: [[Character]] = []
            var start = 0
            while start < text.count { lines.append(Array(text[start..<min(text.count, start + width)])); start += width }
            guard lines.count > height else { return lines }
            let first = step % (lines.count - height + 1)
            return Array(lines[first..<(first + height)])
        }
        guard text.count > width else { return [text] }
        let loop = text + Array("   ")
        let first = step % loop.count
        return [(0..<width).map { loop[(first + $0) % loop.count] }]
    }
}
