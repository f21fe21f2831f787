import NookActivities
import NookDisplay

/// Draws a ``NookGlance`` (an LCDproc client's screen, SPEC E8) as home content: a monospace
/// grid centred on the panel with a tinted title bar and bars drawn as rounded bars, so it
/// reads as part of Nook rather than as a picture of a character LCD.
struct GlanceRenderer {
    var theme: Theme
    /// Width of a DejaVu Sans Mono advance per pixel of font size.
    static let monospaceAdvance = 0.602
    static let monospaceFamily = "DejaVu Sans Mono"

    func draw(_ glance: NookGlance, on canvas: Canvas, size: PixelSize) {
        let (width, height) = (Double(size.width), Double(size.height))
        let margin = min(width, height) * 0.06
        let (areaWidth, areaHeight) = (width - 2 * margin, height - 2 * margin)
        // Cells are as large as the panel allows at a monospace font's proportions, with
        // rows a little taller than the font so the title bar and bars have room.
        let fontSize = min(areaWidth / Double(glance.columns) / Self.monospaceAdvance,
                           areaHeight / Double(glance.rows) / 1.3)
        let cellWidth = fontSize * Self.monospaceAdvance
        let cellHeight = fontSize * 1.3
        let gridWidth = cellWidth * Double(glance.columns)
        let gridHeight = cellHeight * Double(glance.rows)
        let left = (width - gridWidth) / 2
        let top = (height - gridHeight) / 2

        if let titleRow = glance.titleRow {
            let bar = Rect(x: left - cellWidth * 0.5, y: top + Double(titleRow) * cellHeight + cellHeight * 0.06,
                           width: gridWidth + cellWidth, height: cellHeight * 0.88)
            canvas.fillRoundedRect(bar, radius: cellHeight * 0.22, color: theme.accent, alpha: 0.28)
        }
        if let row = glance.highlightRow, row != glance.titleRow {
            // The selected entry of the server menu: a solid accent bar, the text over it.
            let bar = Rect(x: left - cellWidth * 0.5, y: top + Double(row) * cellHeight + cellHeight * 0.06,
                           width: gridWidth + cellWidth, height: cellHeight * 0.88)
            canvas.fillRoundedRect(bar, radius: cellHeight * 0.22, color: theme.accent, alpha: 0.55)
        }
        for bar in glance.bars {
            let x = left + Double(bar.column) * cellWidth
            let rowTop = top + Double(bar.row) * cellHeight
            switch bar.direction {
            case .horizontal:
                let length = min(bar.length, Double(glance.columns - bar.column)) * cellWidth
                guard length > 0 else { continue }
                let thickness = cellHeight * 0.42
                canvas.fillRoundedRect(Rect(x: x, y: rowTop + (cellHeight - thickness) / 2, width: length, height: thickness),
                                       radius: thickness / 2, color: theme.accent)
            case .vertical:
                let length = min(bar.length, Double(bar.row + 1)) * cellHeight
                guard length > 0 else { continue }
                let thickness = cellWidth * 0.7
                canvas.fillRoundedRect(Rect(x: x + (cellWidth - thickness) / 2, y: rowTop + cellHeight - length, width: thickness, height: length),
                                       radius: thickness / 2, color: theme.accent)
            }
        }
        for (row, line) in glance.lines.enumerated() where !line.allSatisfy({ $0 == " " }) {
            let isTitle = row == glance.titleRow
            let text = canvas.layoutText(line, family: Self.monospaceFamily, weight: isTitle ? .bold : .regular,
                                         pixelSize: fontSize, maxWidth: gridWidth + cellWidth, maxLines: 1)
            let y = top + Double(row) * cellHeight + (cellHeight - text.size.height) / 2
            text.draw(x: left, y: y, color: theme.primaryText)
        }
    }
}
