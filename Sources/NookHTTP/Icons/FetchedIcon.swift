import NookActivities
import NookGIF
import NookPNG

/// A fetched body that is an icon nookd will draw (M3), told by its bytes (a server's
/// Content-Type is often wrong): a GIF that NookGIF decodes whole within nookd's bounds, or a
/// PNG whose structure NookPNG finds whole (``PNGStructure``). A file that passes here is one
/// nookd's decoder takes: a broken one would have nookd refuse every card with its id until the
/// cache let it go.
struct FetchedIcon {
    enum Kind: String { case png, gif }

    let kind: Kind
    let bytes: [UInt8]
    let width: Int
    let height: Int
    let frames: Int

    /// nookd draws icons of at most this many pixels a side (IconFile's bound).
    static let largestSide = 1024

    init(checking bytes: [UInt8], limit: Int) throws(HTTPSGet.Failure) {
        self.bytes = bytes
        if bytes.starts(with: PNGStructure.signature) {
            do throws(PNGStructureError) {
                let header = try PNGStructure.check(bytes, largestSide: Self.largestSide)
                (kind, width, height, frames) = (.png, header.width, header.height, 1)
            } catch {
                switch error {
                case .tooLarge(let width, let height):
                    throw .init("is \(width)x\(height) pixels; nookd draws icons of at most \(Self.largestSide)x\(Self.largestSide)")
                case .broken(let why): throw .init("is a PNG that cannot be drawn: \(why)")
                }
            }
        } else if GIFDecoder.isGIF(bytes) {
            do throws(GIFError) {
                let gif = try GIFDecoder.decode(bytes, limits: GIFLimits(bytes: limit, side: Self.largestSide, frames: 256, decodedPixels: 1 << 22))
                (kind, width, height, frames) = (.gif, gif.width, gif.height, gif.frames.count)
            } catch {
                throw .init("is a GIF that cannot be drawn: \(error)")
            }
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            throw .init("is a JPEG, which nookd does not draw: put it in an icon directory as a PNG")
        } else {
            throw .init("is neither a PNG nor a GIF (it begins '\(SaidText.shown(String(decoding: bytes.prefix(24), as: UTF8.self), scalars: 24))')")
        }
        guard (1...Self.largestSide).contains(width), (1...Self.largestSide).contains(height) else {
            throw .init("is \(width)x\(height) pixels; nookd draws icons of at most \(Self.largestSide)x\(Self.largestSide)")
        }
    }
}
