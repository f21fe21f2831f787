import NookHTTP

/// The page's weight (V2): what a browser downloads to show it, the HTML, CSS and script
/// nook-http serves, the glass's PNGs aside. A size, not a time: no rounds.
func reportPageFigures() {
    report("http_page_kib", (Double(PageAssets.totalBytes) / 1024 * 10).rounded() / 10)
}
