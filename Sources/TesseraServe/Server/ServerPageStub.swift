// A stand-in for the live page until the page itself is in the module:
// the real `LivePage` replaces this file.

/// The page `GET /` serves.
package enum LivePage {
    /// The page: self-contained HTML, no external assets.
    package static let html = """
    <!DOCTYPE html>
    <html lang="en"><head><meta charset="utf-8"><title>Tessera live list</title></head>
    <body><p>The live list connects to <code>/live</code>.</p></body></html>
    """
}
