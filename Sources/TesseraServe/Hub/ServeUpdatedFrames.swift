import TesseraDiff
import TesseraLayout
import TesseraView

/// For one change that only updates items, the frames of those items per
/// layout and width, found once and shared by every up-to-date client with
/// the same layout and width (their views lay out the same list the same
/// way), so that telling whether the change touches a client's viewport is
/// a few rectangle tests instead of a layout query per client.
///
/// A change with anything but item updates (or more than 64 of them, or
/// one whose index path moves) has no frames: every client takes the full
/// path, as ``ServeHub/changesNothingVisible(_:in:)`` says.
final class ServeUpdatedFrames {
    /// A layout's kind and the width it lays out for.
    private struct Key: Hashable {
        var kind: ServeLayoutKind
        var width: Double
    }

    /// The change.
    private let changeset: Changeset
    /// Whether the change only updates at most 64 items in place.
    let isEligible: Bool
    /// The updated items' frames per layout and width; `nil` when an item
    /// has no frame there.
    private var frames: [Key: [Rect]?] = [:]

    /// The frames of `changeset`'s updated items, to be found per layout.
    init(_ changeset: Changeset) {
        self.changeset = changeset
        isEligible = changeset.sectionDeletes.isEmpty && changeset.sectionInserts.isEmpty && changeset.sectionMoves.isEmpty
            && changeset.itemDeletes.isEmpty && changeset.itemInserts.isEmpty && changeset.itemMoves.isEmpty
            && !changeset.itemUpdates.isEmpty && changeset.itemUpdates.count <= 64
            && changeset.itemUpdates.allSatisfy { $0.from == $0.to }
    }

    /// Whether the change leaves everything `view` shows as it is (a view
    /// of a client that is at the change's old state, with a layout of
    /// `kind`): the same answer as ``ServeHub/changesNothingVisible(_:in:)``.
    ///
    /// - Complexity: O(*u*) for *u* updated items, plus O(*u* log *n*) the
    ///   first time for a layout and width.
    func changesNothingVisible(in view: CollectionView, kind: ServeLayoutKind) -> Bool {
        guard isEligible else { return false }
        let key = Key(kind: kind, width: view.bounds.size.width)
        let found: [Rect]?
        if let cached = frames[key] {
            found = cached
        } else {
            let layout = view.collectionViewLayout
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
        let shown = ServeHub.shownRect(of: view)
        return !found.contains { $0.intersects(shown) }
    }
}

@available(*, unavailable)
extension ServeUpdatedFrames: Sendable {}
