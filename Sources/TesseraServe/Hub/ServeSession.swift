import Foundation
import TesseraDiff
import TesseraLayout
import TesseraResults
import TesseraView

/// The result a client was last sent, as a collection view's data source.
///
/// It keeps the controller's ``FetchedResult`` itself, not a snapshot of
/// it: taking the next state costs nothing, and the view reads counts and
/// ids in O(1) and O(log *n*).
final class ServeDataSource: CollectionViewDataSource {
    /// The client's state.
    var result: FetchedResult<ServeRecord>

    /// A data source showing `result`.
    init(result: FetchedResult<ServeRecord>) {
        self.result = result
    }

    /// The result's sections.
    func numberOfSections(in collectionView: CollectionView) -> Int { result.numberOfSections }

    /// The result's items in a section.
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        result.numberOfRecords(inSection: section)
    }

    /// The record's id.
    ///
    /// - Complexity: O(log *n*).
    func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? {
        result[indexPath].id
    }
}

@available(*, unavailable)
extension ServeDataSource: Sendable {}

/// One connected client: its permission, and once it said `hello`, its
/// layout, its viewport (the view's bounds: always the rectangle the client
/// last sent, never moved by a change), the state it was last sent and the
/// sequence number of that state.
final class ServeSession {
    /// The client.
    let id: ServeClientID
    /// Its messages waiting to be sent.
    let outbox: ClientOutbox
    /// Whether its edits are allowed.
    let canEdit: Bool

    /// What the client asked for in `hello`, once it did.
    var isReady = false
    /// The layout of its view.
    var layoutKind = ServeLayoutKind.flow
    /// Whether it asked for ids (`ids: true`).
    var wantsIDs = false
    /// The client's view: its layout, its viewport, the state it shows.
    var view: CollectionView?
    /// The state it was last sent, as its view's data source.
    var dataSource = ServeDataSource(result: FetchedResult())
    /// The `seq` of the state the client was last sent.
    var seq = 0
    /// Whether plans are held back until the outbox drains.
    var isBehind = false
    /// Replies that wait for the merged plan of a client that is behind.
    var heldReplies: [String] = []

    /// A client that has not said `hello` yet.
    init(id: ServeClientID, outbox: ClientOutbox, canEdit: Bool) {
        self.id = id
        self.outbox = outbox
        self.canEdit = canEdit
    }

    /// Starts the client's view at `result` (state `seq`).
    ///
    /// - Complexity: the layout's `prepare()`, O(*n*).
    func start(layout: ServeLayoutKind, viewport: Rect, result: FetchedResult<ServeRecord>, seq: Int, headers: Bool) {
        layoutKind = layout
        dataSource.result = result
        let view = CollectionView(layout: layout.makeLayout(width: viewport.size.width, headers: headers), size: viewport.size)
        view.anchorsScrollPosition = false
        // The viewport is the client's: a change never moves it (a client
        // keeps its own scrolling within the content, as a browser does),
        // so every plan's offset after and its settled elements are those
        // of the rectangle the client sent.
        view.clampsContentOffset = false
        view.dataSource = dataSource
        view.reloadData()
        view.setBounds(viewport, animated: false)
        self.view = view
        self.seq = seq
        isReady = true
    }

    /// Moves the viewport, and changes the layout when `layout` differs (or
    /// a column layout's width asks for another column count).
    func setViewport(_ viewport: Rect, layout: ServeLayoutKind?, headers: Bool) {
        guard let view else { return }
        let kind = layout ?? layoutKind
        let columnsChange = kind == .column
            && ServeLayoutKind.columnCount(width: viewport.size.width) != ServeLayoutKind.columnCount(width: view.bounds.size.width)
        if kind != layoutKind || columnsChange {
            layoutKind = kind
            view.setBounds(Rect(origin: view.bounds.origin, size: viewport.size), animated: false)
            view.setCollectionViewLayout(kind.makeLayout(width: viewport.size.width, headers: headers), animated: false)
        }
        view.setBounds(viewport, animated: false)
    }
}

@available(*, unavailable)
extension ServeSession: Sendable {}

/// A connected client's identity in a ``ServeHub``.
package struct ServeClientID: Hashable, Sendable, CustomStringConvertible {
    /// The number the hub gave it, from 1.
    package let value: Int

    /// Creates an id.
    package init(_ value: Int) {
        self.value = value
    }

    /// `client 3`.
    package var description: String { "client \(value)" }
}
