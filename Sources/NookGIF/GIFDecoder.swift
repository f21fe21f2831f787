/// Decodes GIF87a and GIF89a files (the global and local colour tables, LZW, interlacing, the
/// graphic control extension's transparency, delay and disposal) within ``GIFLimits``. Every
/// size is checked before it is allocated and every refusal says what was wrong and where.
public enum GIFDecoder {
    /// Whether `bytes` start as a GIF does.
    public static func isGIF(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
    }

    public static func decode(_ bytes: [UInt8], limits: GIFLimits = .icon) throws(GIFError) -> GIFImage {
        guard bytes.count <= limits.bytes else { throw GIFError("the file is \(bytes.count) bytes; a GIF may have at most \(limits.bytes)") }
        guard isGIF(bytes) else { throw GIFError("the file is not a GIF (no GIF87a or GIF89a signature)") }
        var reader = ByteReader(bytes: bytes, offset: 6)
        let width = try reader.word("the logical screen's width")
        let height = try reader.word("the logical screen's height")
        let packed = try reader.byte("the logical screen's flags")
        _ = try reader.byte("the background colour's index")
        _ = try reader.byte("the pixel aspect ratio")
        guard width > 0, height > 0 else { throw GIFError("the file declares a screen of \(width)x\(height) pixels") }
        guard width <= limits.side, height <= limits.side else {
            throw GIFError("the file is \(width)x\(height) pixels; a GIF may be at most \(limits.side)x\(limits.side)")
        }
        let global = packed & 0x80 != 0 ? try reader.colourTable(entries: 2 << (packed & 7), "the global colour table") : nil

        var canvas = GIFCanvas(width: width, height: height)
        var frames: [GIFFrame] = []
        var control = GraphicControl()
        // The images' own pixels, decoded whole before each is clipped to the screen.
        var read = 0
        while true {
            let introducer = try reader.byte("the next block (the file ends without a trailer)")
            switch introducer {
            case 0x3B:
                guard !frames.isEmpty else { throw GIFError("the file holds no image") }
                return GIFImage(width: width, height: height, frames: frames)
            case 0x21:
                let label = try reader.byte("an extension's label")
                if label == 0xF9 {
                    control = try reader.graphicControl()
                } else {
                    try reader.skipSubBlocks("extension 0x\(String(label, radix: 16))")
                }
            case 0x2C:
                let number = frames.count + 1
                guard frames.count < limits.frames else { throw GIFError("the file has more than \(limits.frames) frames") }
                guard (frames.count + 1) * width * height <= limits.decodedPixels else {
                    throw GIFError("the file would decode to more than \(limits.decodedPixels) pixels (\(frames.count + 1) frames of \(width)x\(height))")
                }
                let image = try reader.imageDescriptor(number: number, limits: limits)
                guard read + image.width * image.height <= limits.decodedPixels else {
                    throw GIFError("the file would decode more than \(limits.decodedPixels) pixels (image \(number) is \(image.width)x\(image.height), after \(read) in the images before it)")
                }
                read += image.width * image.height
                guard let table = image.localTable ?? global else { throw GIFError("image \(number) has no colour table") }
                let indices = try LZW.decode(reader.subBlocks("image \(number)'s data"), minimumCodeSize: image.codeSize,
                                             pixels: image.width * image.height, image: number)
                canvas.draw(image, indices: indices, table: table, transparent: control.transparentIndex)
                frames.append(GIFFrame(pixels: canvas.pixels, delayCentiseconds: control.delay))
                canvas.dispose(image, control.disposal)
                control = GraphicControl()
            default:
                throw GIFError("the file has byte 0x\(String(introducer, radix: 16)) at offset \(reader.offset - 1) where a block should start")
            }
        }
    }
}

/// The graphic control extension's fields for the next image.
struct GraphicControl {
    var disposal = 0
    var delay = 0
    var transparentIndex: Int?
}

/// An image descriptor with its local colour table and LZW code size.
struct GIFImageDescriptor {
    var left: Int, top: Int, width: Int, height: Int
    var interlaced: Bool
    var localTable: [UInt32]?
    var codeSize: Int
}

/// The screen the frames are drawn on, and what disposal restores.
struct GIFCanvas {
    let width: Int, height: Int
    var pixels: [UInt32]
    /// For disposal 3: the screen before the last image was drawn.
    private var saved: [UInt32]?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt32](repeating: 0, count: width * height)
    }

    /// Draws the image's opaque pixels, clipped to the screen (browsers clip as well).
    mutating func draw(_ image: GIFImageDescriptor, indices: [UInt8], table: [UInt32], transparent: Int?) {
        saved = pixels
        for row in 0..<image.height {
            let y = image.top + Self.rowAt(row, of: image.height, interlaced: image.interlaced)
            guard y < height else { continue }
            for column in 0..<image.width {
                let x = image.left + column
                guard x < width else { break }
                let index = Int(indices[row * image.width + column])
                guard index != transparent else { continue }
                // An index past the table is drawn transparent, as browsers do.
                pixels[y * width + x] = index < table.count ? table[index] : 0
            }
        }
    }

    /// Disposal 2 clears the image's rectangle (to transparent, as browsers do rather than to
    /// the background colour); 3 puts back what was under it; 0 and 1 leave it.
    mutating func dispose(_ image: GIFImageDescriptor, _ disposal: Int) {
        switch disposal {
        case 2:
            for y in image.top..<min(height, image.top + image.height) {
                for x in image.left..<min(width, image.left + image.width) { pixels[y * width + x] = 0 }
            }
        case 3:
            if let saved { pixels = saved }
        default:
            break
        }
    }

    /// The row of the image that the `row`th row of its data fills: interlaced data comes in
    /// four passes (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    static func rowAt(_ row: Int, of height: Int, interlaced: Bool) -> Int {
        guard interlaced else { return row }
        var row = row
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            let rows = start < height ? (height - start + step - 1) / step : 0
            if row < rows { return start + row * step }
            row -= rows
        }
        return row
    }
}
