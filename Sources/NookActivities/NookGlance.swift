/// A character-grid glance for the home content (SPEC E8): what an LCDproc client's screen
/// shows, composed by the `nook-lcdproc` bridge and drawn by nookd's renderer as a designed
/// monospace grid (a tinted title bar, real bars, any Unicode), not as LCD pixels.
///
/// Pure data, validated here once (like ``NookActivity``), so the socket protocol carries it
/// and the renderer draws it without either knowing LCDproc.
public struct NookGlance: Hashable, Sendable {
    public enum Direction: String, Hashable, Sendable {
        /// Grows to the right from its cell.
        case horizontal = "h"
        /// Grows upwards from the bottom of its cell.
        case vertical = "v"
    }

    /// A bar: starts at a cell and is `length` cells long (fractions allowed: LCDproc gives
    /// bar lengths in pixels of a cell).
    public struct Bar: Hashable, Sendable {
        public var row: Int
        public var column: Int
        public var length: Double
        public var direction: Direction

        public init(row: Int, column: Int, length: Double, direction: Direction) {
            (self.row, self.column, self.length, self.direction) = (row, column, length, direction)
        }
    }

    public enum Limits {
        public static let columns = 1...80
        public static let rows = 1...24
        public static let bars = 256
        /// One line: 32 bytes a cell on average (any emoji sequence fits a cell), so a full
        /// 80x24 grid is at most 60 KiB of text. That a line is no wider than the grid is
        /// counted in the characters a person sees, in ``NookGlance/validate()``.
        public static func line(columns: Int) -> NookTextLimit { NookTextLimit(characters: 32 * columns, bytes: 32 * columns) }
    }

    public var columns: Int
    public var rows: Int
    /// One string per row, each at most `columns` characters; cells past its end are blank.
    public var lines: [String]
    /// The row drawn as a title bar (LCDproc's `title` widget), if any.
    public var titleRow: Int?
    public var bars: [Bar]
    /// The row drawn highlighted (the selected entry of LCDproc's server menu), if any.
    public var highlightRow: Int?
    /// A menu the person is working with the buttons (LCDproc's server menu): while it is the
    /// home, a press of the open input is the menu's Enter, not the nook's open toggle (E8).
    public var menu: Bool

    public init(columns: Int, rows: Int, lines: [String], titleRow: Int? = nil, bars: [Bar] = [], highlightRow: Int? = nil, menu: Bool = false) {
        (self.columns, self.rows, self.lines, self.titleRow, self.bars) = (columns, rows, lines, titleRow, bars)
        (self.highlightRow, self.menu) = (highlightRow, menu)
    }

    /// A blank grid.
    public init(columns: Int, rows: Int) {
        self.init(columns: columns, rows: rows, lines: Array(repeating: "", count: max(0, rows)))
    }

    /// Refuses a glance that does not fit its own grid, naming the field at fault.
    public func validate() throws(NookActivityValidationError) {
        guard Limits.columns.contains(columns) else {
            throw NookActivityValidationError(field: "columns", problem: "must be \(Limits.columns.lowerBound) to \(Limits.columns.upperBound), got \(columns)")
        }
        guard Limits.rows.contains(rows) else {
            throw NookActivityValidationError(field: "rows", problem: "must be \(Limits.rows.lowerBound) to \(Limits.rows.upperBound), got \(rows)")
        }
        guard lines.count == rows else {
            throw NookActivityValidationError(field: "lines", problem: "must hold one string per row (\(rows)), got \(lines.count)")
        }
        let limit = Limits.line(columns: columns)
        for (index, line) in lines.enumerated() {
            if line.utf8.count > columns, line.count > columns {
                throw NookActivityValidationError(field: "lines[\(index)]", problem: "is \(line.count) characters long; the grid is \(columns) wide")
            }
            if let problem = limit.problem(with: line) {
                throw NookActivityValidationError(field: "lines[\(index)]", problem: problem)
            }
        }
        if let titleRow, !(0..<rows).contains(titleRow) {
            throw NookActivityValidationError(field: "titleRow", problem: "must be a row from 0 to \(rows - 1), got \(titleRow)")
        }
        if let highlightRow, !(0..<rows).contains(highlightRow) {
            throw NookActivityValidationError(field: "highlightRow", problem: "must be a row from 0 to \(rows - 1), got \(highlightRow)")
        }
        guard bars.count <= Limits.bars else {
            throw NookActivityValidationError(field: "bars", problem: "at most \(Limits.bars) bars, got \(bars.count)")
        }
        for (index, bar) in bars.enumerated() {
            guard (0..<rows).contains(bar.row), (0..<columns).contains(bar.column) else {
                throw NookActivityValidationError(field: "bars[\(index)]", problem: "starts at row \(bar.row), column \(bar.column), outside the \(columns)x\(rows) grid")
            }
            guard bar.length.isFinite, bar.length >= 0, bar.length <= Double(max(columns, rows)) else {
                throw NookActivityValidationError(field: "bars[\(index)].length", problem: "must be 0 to \(max(columns, rows)) cells, got \(bar.length)")
            }
        }
    }
}
