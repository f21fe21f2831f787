/// How the LEDs of a matrix are wired: which pixel is the n-th LED on the chain (L1).
///
/// A panel's chain starts at its `origin` corner and runs along rows or columns (`order`);
/// `serpentine` panels turn back at the end of each line (zig-zag), progressive ones jump back
/// to the start of the next. Several identical panels (`tiles`) are chained left to right,
/// then top to bottom, each wired the same way inside.
public struct LEDLayout: Hashable, Sendable, CustomStringConvertible {
    public enum Corner: String, CaseIterable, Sendable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// Along which lines the chain runs first.
    public enum Order: String, CaseIterable, Sendable {
        case rows, columns
    }

    /// The whole display, all tiles together.
    public let width: Int
    public let height: Int
    /// One panel of the tiling; the whole display when there is one panel.
    public let panelWidth: Int
    public let panelHeight: Int
    public let serpentine: Bool
    public let origin: Corner
    public let order: Order
    /// Chain index of each pixel, row-major: built once, so a frame is a table walk.
    public let chainIndex: [Int32]

    public init(width: Int, height: Int, panelWidth: Int? = nil, panelHeight: Int? = nil,
                serpentine: Bool = false, origin: Corner = .topLeft, order: Order = .rows) throws(LEDError) {
        let panelWidth = panelWidth ?? width
        let panelHeight = panelHeight ?? height
        guard width > 0, height > 0, width * height <= 16_384 else {
            throw LEDError("geometry must be between 1 and 16384 LEDs, got \(width)x\(height)")
        }
        guard panelWidth > 0, panelHeight > 0, width % panelWidth == 0, height % panelHeight == 0 else {
            throw LEDError("tiles of \(panelWidth)x\(panelHeight) do not divide a \(width)x\(height) display evenly")
        }
        (self.width, self.height, self.panelWidth, self.panelHeight) = (width, height, panelWidth, panelHeight)
        (self.serpentine, self.origin, self.order) = (serpentine, origin, order)
        var table = [Int32](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                table[y * width + x] = Int32(Self.index(x: x, y: y, width: width, panelWidth: panelWidth, panelHeight: panelHeight,
                                                        serpentine: serpentine, origin: origin, order: order))
            }
        }
        chainIndex = table
    }

    /// A single row of LEDs (a strip).
    public static func strip(_ count: Int) throws(LEDError) -> LEDLayout { try LEDLayout(width: count, height: 1) }

    public var count: Int { width * height }

    public func index(x: Int, y: Int) -> Int { Int(chainIndex[y * width + x]) }

    private static func index(x: Int, y: Int, width: Int, panelWidth: Int, panelHeight: Int,
                              serpentine: Bool, origin: Corner, order: Order) -> Int {
        let tile = (y / panelHeight) * (width / panelWidth) + x / panelWidth
        var column = x % panelWidth
        var row = y % panelHeight
        if origin == .topRight || origin == .bottomRight { column = panelWidth - 1 - column }
        if origin == .bottomLeft || origin == .bottomRight { row = panelHeight - 1 - row }
        let (line, along, lineLength) = order == .rows ? (row, column, panelWidth) : (column, row, panelHeight)
        let position = serpentine && line % 2 == 1 ? lineLength - 1 - along : along
        return tile * panelWidth * panelHeight + line * lineLength + position
    }

    public var description: String {
        let tiling = panelWidth == width && panelHeight == height ? "" : " in \(panelWidth)x\(panelHeight) tiles"
        return "\(width)x\(height)\(tiling), \(serpentine ? "serpentine" : "progressive") \(order.rawValue) from \(origin.rawValue)"
    }
}

/// A problem with an LED display's settings or its bus, in words a person can act on.
public struct LEDError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
