import TesseraLiveHub
import TesseraLiveProtocol

/// The page a ``LiveList`` sends for its path (`GET /` in `tessera serve`):
/// the live list a person uses in a browser, and the player module another
/// front end can load. The page is real files in this folder, compiled into
/// the module as bytes by SwiftPM (`.embedInCode`, so no resource bundle is
/// looked for at run time):
///
/// - `live.html`: the document, which links the three files below; opened
///   from this folder, it loads them as a browser would.
/// - `live.css`: its style.
/// - `tessera-live.js`: the protocol and the plan player (a connection that
///   says `hello`, sends viewports and edits and reconnects; a player that
///   draws elements and plays plans; the changeset replay), with no DOM of
///   its own to assume. Its API is documented at its top and in the article
///   "Writing your own front end".
/// - `live-demo.js`: the page itself on top of that API: pinned album
///   headers, the layout switch, selection, drag to reorder, inline title
///   edit, delete, add and the status line, with ARIA roles and a visible
///   focus. It exposes `window.tessera` for tests (see the file).
///
/// ``html`` is the document with its style and scripts inlined: one
/// self-contained page (no external assets, no further request), so that it
/// works at any path it is mounted at; it opens its WebSocket at
/// `PATH/live`, under its own path.
package enum LivePage {
    /// The page's HTML: `live.html` with `live.css`, `tessera-live.js` and
    /// `live-demo.js` inlined.
    package static let html: String = compose(
        shell: text(PackageResources.live_html),
        style: text(PackageResources.live_css),
        scripts: ["tessera-live.js": playerModule, "live-demo.js": text(PackageResources.live_demo_js)]
    )

    /// The player module, `tessera-live.js`: what a ``LiveList`` serves at
    /// `PATH/tessera-live.js` for other front ends.
    package static let playerModule: String = text(PackageResources.tessera_live_js)

    /// The UTF-8 text of an embedded file.
    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The shell with its stylesheet link replaced by a `style` element
    /// holding `style`, and each script element that loads one of
    /// `scripts` by one holding its text.
    ///
    /// - Complexity: O(*n*) in the length of the page.
    static func compose(shell: String, style: String, scripts: [String: String]) -> String {
        var page = shell
        replace(#"<link rel="stylesheet" href="live.css">"#, by: "<style>\n" + style + "</style>", in: &page)
        for (name, script) in scripts.sorted(by: { $0.key < $1.key }) {
            // The script's text must not end the element it is inlined in.
            precondition(!script.lowercased().contains("</script"), "\(name) contains </script")
            replace("<script src=\"\(name)\"></script>", by: "<script>\n" + script + "</script>", in: &page)
        }
        return page
    }

    /// Replaces the one `element` of `page` by `replacement`; the shell is
    /// the package's own, so a missing element is a build mistake.
    private static func replace(_ element: String, by replacement: String, in page: inout String) {
        guard let range = page.range(of: element) else {
            preconditionFailure("live.html has no \(element)")
        }
        page.replaceSubrange(range, with: replacement)
    }
}
