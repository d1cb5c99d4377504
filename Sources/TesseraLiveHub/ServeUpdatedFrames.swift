import TesseraDiff
import TesseraLayout
import TesseraLiveProtocol
import TesseraView

/// For one change that only updates items, the frames of those items per
/// group of clients that share a layout, found once and shared by every
/// up-to-date client of the group, so that telling whether the change
/// touches a client's viewport is a few rectangle tests instead of a layout
/// query per client.
///
/// A change with anything but item updates (or more than 64 of them, or
/// one whose index path moves) has no frames: every client takes the full
/// path, as ``ServeHub/changesNothingVisible(_:in:)`` says.
package final class ServeUpdatedFrames {
    /// The change.
    private let changeset: Changeset
    /// Whether the change only updates at most 64 items in place.
    package let isEligible: Bool
    /// The updated items' frames per group; `nil` when an item has no
    /// frame there.
    private var frames: [ObjectIdentifier: [Rect]?] = [:]

    /// The frames of `changeset`'s updated items, to be found per layout.
    package init(_ changeset: Changeset) {
        self.changeset = changeset
        isEligible = changeset.sectionDeletes.isEmpty && changeset.sectionInserts.isEmpty && changeset.sectionMoves.isEmpty
            && changeset.itemDeletes.isEmpty && changeset.itemInserts.isEmpty && changeset.itemMoves.isEmpty
            && !changeset.itemUpdates.isEmpty && changeset.itemUpdates.count <= 64
            && changeset.itemUpdates.allSatisfy { $0.from == $0.to }
    }

    /// Whether the change leaves everything a viewport of `group` shows as
    /// it is, asked before the group's view takes the change: the same
    /// answer as ``ServeHub/changesNothingVisible(_:in:)`` for a view of the
    /// group's layout with that viewport.
    ///
    /// - Complexity: O(*u*) for *u* updated items, plus O(*u* log *n*) the
    ///   first time for a group.
    package func changesNothingVisible(in viewport: Rect, of group: ServeLayoutGroup) -> Bool {
        guard isEligible else { return false }
        let key = ObjectIdentifier(group)
        let found: [Rect]?
        if let cached = frames[key] {
            found = cached
        } else {
            let layout = group.view.collectionViewLayout
            var rects: [Rect]? = []
            for update in changeset.itemUpdates {
                guard let attributes = layout.layoutAttributesForItem(at: update.to) else {
                    rects = nil
                    break
                }
                rects?.append(attributes.frame)
            }
            frames[key] = .some(rects)
            found = rects
        }
        guard let found else { return false }
        let shown = ServeHub.shownRect(of: viewport)
        return !found.contains { $0.intersects(shown) }
    }
}

@available(*, unavailable)
extension ServeUpdatedFrames: Sendable {}
