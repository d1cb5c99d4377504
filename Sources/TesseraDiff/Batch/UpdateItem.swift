#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One operation of a batch update, as UIKit's `UICollectionViewUpdateItem`
/// describes it to a layout.
///
/// A section-level item's index paths have one index (the section) and no
/// item index; an item-level item's have two. Which paths are set depends on
/// the action:
///
/// | action | before | after |
/// |---|---|---|
/// | `.insert` | — | where it appears |
/// | `.delete` | where it was | — |
/// | `.reload` | where it was | where it lands (optional in input) |
/// | `.move` | where it was | where it goes |
/// | `.none` | optional | optional |
public struct UpdateItem: Hashable, Codable, Sendable {
    /// What happens to the element, as `UICollectionView.UpdateAction`.
    public enum Action: String, Hashable, Codable, Sendable, CaseIterable {
        /// The element appears (path after only).
        case insert
        /// The element goes (path before only).
        case delete
        /// The element is replaced by a fresh copy of itself (path before,
        /// and where it lands after when known).
        case reload
        /// The element changes position (paths before and after).
        case move
        /// Nothing happens to the element; validators and replay ignore it.
        case none
    }

    /// The element's index path before the update (old space).
    public var indexPathBeforeUpdate: IndexPath?
    /// The element's index path after the update (new space).
    public var indexPathAfterUpdate: IndexPath?
    /// What happens to the element.
    public var updateAction: Action

    /// Creates an update item from its parts.
    public init(action: Action, before: IndexPath?, after: IndexPath?) {
        updateAction = action
        indexPathBeforeUpdate = before
        indexPathAfterUpdate = after
    }

    /// Whether the item names a whole section (its paths have one index).
    public var isSectionOperation: Bool {
        (indexPathBeforeUpdate ?? indexPathAfterUpdate)?.count == 1
    }

    /// Inserts the section that will be at `section` after the update.
    public static func insertSection(_ section: Int) -> UpdateItem {
        UpdateItem(action: .insert, before: nil, after: IndexPath(index: section))
    }

    /// Deletes the section at `section` before the update.
    public static func deleteSection(_ section: Int) -> UpdateItem {
        UpdateItem(action: .delete, before: IndexPath(index: section), after: nil)
    }

    /// Reloads the section at `section` before the update; `landing`, when
    /// known, is its index after the update.
    public static func reloadSection(_ section: Int, landing: Int? = nil) -> UpdateItem {
        UpdateItem(action: .reload, before: IndexPath(index: section), after: landing.map { IndexPath(index: $0) })
    }

    /// Moves a section from its index before the update to its index after.
    public static func moveSection(_ from: Int, to: Int) -> UpdateItem {
        UpdateItem(action: .move, before: IndexPath(index: from), after: IndexPath(index: to))
    }

    /// Inserts the item that will be at `indexPath` after the update.
    public static func insertItem(at indexPath: IndexPath) -> UpdateItem {
        UpdateItem(action: .insert, before: nil, after: indexPath)
    }

    /// Deletes the item at `indexPath` before the update.
    public static func deleteItem(at indexPath: IndexPath) -> UpdateItem {
        UpdateItem(action: .delete, before: indexPath, after: nil)
    }

    /// Reloads the item at `indexPath` before the update; `landing`, when
    /// known, is its index path after the update.
    public static func reloadItem(at indexPath: IndexPath, landing: IndexPath? = nil) -> UpdateItem {
        UpdateItem(action: .reload, before: indexPath, after: landing)
    }

    /// Moves an item from its index path before the update to its index path
    /// after.
    public static func moveItem(from: IndexPath, to: IndexPath) -> UpdateItem {
        UpdateItem(action: .move, before: from, after: to)
    }
}

extension UpdateItem: CustomStringConvertible {
    /// `delete [section 0, item 2]`, `move [section 1] → [section 0]`.
    public var description: String {
        let before = indexPathBeforeUpdate?.tesseraDescription
        let after = indexPathAfterUpdate?.tesseraDescription
        switch (before, after) {
        case let (b?, a?): return "\(updateAction.rawValue) \(b) → \(a)"
        case let (b?, nil): return "\(updateAction.rawValue) \(b)"
        case let (nil, a?): return "\(updateAction.rawValue) → \(a)"
        case (nil, nil): return updateAction.rawValue
        }
    }
}
