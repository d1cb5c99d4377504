import TesseraLayout
import TesseraLiveProtocol
import TesseraResults
import TesseraView

/// The clients that lay the list out the same way, and the one view they
/// share: its layout lays the list out once per change for all of them,
/// and each client's plan is a rect query of its own viewport before and
/// after (``TesseraView/CollectionView/performBatchUpdates(_:animated:viewports:)``).
///
/// A group's view always shows the hub's current list (the result at the
/// hub's `seq`): the hub updates every group with every change, whether or
/// not its clients are up to date. A client that is behind is brought up
/// to date on a view of its own (see ``ServeHub/catchUp(_:)``).
package final class ServeLayoutGroup {
    /// What a group shares: a layout kind and the viewport dimensions that
    /// kind lays out with.
    package struct Key: Hashable {
        /// The layout.
        var kind: ServeLayoutKind
        /// The viewport's width: every layout lays items out across it.
        var width: Double
        /// The viewport's height for the list layout, whose content is at
        /// least as tall as the viewport; `nil` for the others, which do not
        /// depend on it (the grid pins headers to each client's viewport at
        /// query time).
        var height: Double?

        /// The key of a viewport with layout `kind`.
        init(kind: ServeLayoutKind, viewport: Rect) {
            self.kind = kind
            width = viewport.size.width
            height = kind == .list ? viewport.size.height : nil
        }
    }

    /// The key.
    package let key: Key
    /// The shared view, with the size of the first client's viewport.
    package let view: CollectionView
    /// The view's data source: the hub's current list.
    package let dataSource: ServeDataSource
    /// The clients in the group.
    package var members: Set<ServeClientID> = []

    /// A group showing `result`.
    ///
    /// - Parameters:
    ///   - viewport: A viewport of the group (it gives the view its size).
    ///   - headers: Whether sections have headers.
    /// - Complexity: the layout's `prepare()`, O(*n*).
    package init(key: Key, viewport: Rect, result: FetchedResult<ServeRecord>, headers: Bool) {
        self.key = key
        dataSource = ServeDataSource(result: result)
        view = ServeLayoutGroup.makeView(kind: key.kind, viewport: viewport, dataSource: dataSource, headers: headers)
    }

    /// A view of layout `kind` showing what `dataSource` says, with a
    /// viewport's size and origin, that never moves the viewport: a change
    /// keeps it where the client put it (a client keeps its own scrolling
    /// within the content, as a browser does), so every plan's offset after
    /// and its settled elements are those of the rectangle the client sent.
    ///
    /// - Complexity: the layout's `prepare()`, O(*n*).
    package static func makeView(kind: ServeLayoutKind, viewport: Rect, dataSource: ServeDataSource, headers: Bool) -> CollectionView {
        let view = CollectionView(layout: kind.makeLayout(width: viewport.size.width, headers: headers), size: viewport.size)
        view.anchorsScrollPosition = false
        view.clampsContentOffset = false
        view.dataSource = dataSource
        view.reloadData()
        view.setBounds(viewport, animated: false)
        return view
    }

    /// The elements in a viewport of the group, now.
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements.
    package func elements(in viewport: Rect) -> [LayoutAttributes] {
        view.layoutAttributesForElements(inViewport: viewport)
    }
}

@available(*, unavailable)
extension ServeLayoutGroup: Sendable {}
