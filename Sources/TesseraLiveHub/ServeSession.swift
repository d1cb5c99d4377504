import Foundation
import TesseraDiff
import TesseraLayout
import TesseraLiveProtocol
import TesseraResults
import TesseraView

/// A list the hub shows (a group's current one, or the state a client that
/// fell behind has), as a collection view's data source.
///
/// It keeps the controller's ``FetchedResult`` itself, not a snapshot of
/// it: taking the next state costs nothing, and the view reads counts and
/// ids in O(1) and O(log *n*).
package final class ServeDataSource: CollectionViewDataSource {
    /// The client's state.
    package var result: FetchedResult<ServeRecord>

    /// A data source showing `result`.
    package init(result: FetchedResult<ServeRecord>) {
        self.result = result
    }

    /// The result's sections.
    package func numberOfSections(in collectionView: CollectionView) -> Int { result.numberOfSections }

    /// The result's items in a section.
    package func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        result.numberOfRecords(inSection: section)
    }

    /// The record's id: a lazy list's key, read without the record, or the
    /// record's; `nil` when a lazy list cannot read it.
    ///
    /// - Complexity: O(log *n*), plus a batch read when a lazy list's keys
    ///   are loading and the record is not kept.
    package func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? {
        result.id(at: indexPath)
    }
}

@available(*, unavailable)
extension ServeDataSource: Sendable {}

/// One connected client: its permission, and once it said `hello`, its
/// layout, its viewport (always the rectangle the client last sent, never
/// moved by a change), the group of clients whose layout it shares, the
/// state it was last sent and the sequence number of that state.
///
/// What a client costs beyond its outbox is these few values: the layout
/// is its group's, and the state it was last sent is the controller's
/// result as of then (the current one while it is up to date), which
/// shares its storage with every other state.
package final class ServeSession {
    /// The client.
    package let id: ServeClientID
    /// Its messages waiting to be sent.
    package let outbox: ClientOutbox
    /// Whether its edits are allowed.
    package let canEdit: Bool

    /// The layout of its view.
    package var layoutKind = ServeLayoutKind.flow
    /// Whether it asked for ids (`ids: true`).
    package var wantsIDs = false
    /// The rectangle it last sent.
    package var viewport = Rect.zero
    /// The clients it shares a layout with, once it said `hello`.
    package var group: ServeLayoutGroup?
    /// The state it was last sent.
    package var result = FetchedResult<ServeRecord>()
    /// The `seq` of the state the client was last sent.
    package var seq = 0
    /// Whether plans are held back until the outbox drains.
    package var isBehind = false
    /// Replies that wait for the merged plan of a client that is behind.
    package var heldReplies: [String] = []
    /// Whether it asked for the elements of a viewport while it was behind:
    /// they are sent after the merged plan, at its state.
    package var wantsElements = false

    /// A client that has not said `hello` yet.
    package init(id: ServeClientID, outbox: ClientOutbox, canEdit: Bool) {
        self.id = id
        self.outbox = outbox
        self.canEdit = canEdit
    }

    /// Whether it said `hello`.
    package var isReady: Bool { group != nil }

    /// The key of the group its layout and viewport belong in.
    package var groupKey: ServeLayoutGroup.Key { ServeLayoutGroup.Key(kind: layoutKind, viewport: viewport) }
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
