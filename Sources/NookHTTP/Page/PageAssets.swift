/// One file of the page, as the browser gets it.
public struct PageAsset: Sendable {
    public let path: String
    public let contentType: String
    public let bytes: [UInt8]
    /// A strong validator: FNV-1a (64 bits) of the bytes, quoted.
    public let etag: String

    init(path: String, contentType: String, text: String) {
        self.path = path
        self.contentType = contentType
        bytes = Array(text.utf8)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        etag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }
}

/// The page's files. They are Swift string literals (PageDocument, PageStyle, PageScript)
/// rather than SwiftPM resources, which would need Foundation's Bundle at run time.
public enum PageAssets {
    public static let all: [PageAsset] = [
        PageAsset(path: "/", contentType: "text/html; charset=utf-8", text: PageDocument.html),
        PageAsset(path: "/page/page.css", contentType: "text/css; charset=utf-8", text: PageStyle.css),
        PageAsset(path: "/page/page.js", contentType: "text/javascript; charset=utf-8", text: PageScript.javascript),
        PageAsset(path: "/page/icon.svg", contentType: "image/svg+xml", text: icon),
    ]

    /// The tab's icon, a card on its glass. The document names it, so a browser does not ask
    /// for `/favicon.ico` (nothing is served there) and log the 404 on the page's console.
    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="1" y="5" width="30" height="22" rx="4" fill="#1c1c1e"/><rect x="5" y="10" width="22" height="5" rx="2" fill="#0a84ff"/><rect x="5" y="18" width="14" height="3" rx="1.5" fill="#8e8e93"/></svg>

"""#

    /// What a browser downloads to show the page (the glass's PNGs aside).
    public static var totalBytes: Int { all.reduce(0) { $0 + $1.bytes.count } }
}
