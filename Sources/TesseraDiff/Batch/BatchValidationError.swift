#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A batch update that UIKit would reject with "Invalid update" (or that
/// Tessera's own rules reject), with a message that names the section, index
/// path and numbers involved.
public enum BatchValidationError: Error, Hashable, Sendable {
    /// Which state an index refers to.
    public enum Space: String, Hashable, Codable, Sendable {
        /// Before the update: deletes, reloads, move sources.
        case before
        /// After the update: inserts, move targets, reload landings.
        case after
    }

    /// An update item whose action and index paths do not fit together.
    case malformedItem(UpdateItem, reason: String)
    /// A number of sections below zero, as a caller or a data source gave
    /// it for the state before or after the update.
    case negativeSectionCount(count: Int, space: Space)
    /// A section's number of items below zero, as a caller or a data source
    /// gave it for the state before or after the update.
    case negativeItemCount(section: Int, count: Int, space: Space)
    /// A section operation names a section that does not exist in its space.
    case sectionOutOfRange(action: UpdateItem.Action, section: Int, sectionCount: Int, space: Space)
    /// An item operation names a section that does not exist in its space.
    case sectionOfItemOutOfRange(action: UpdateItem.Action, indexPath: IndexPath, sectionCount: Int, space: Space)
    /// An item operation names an item past the end of its section.
    case itemOutOfRange(action: UpdateItem.Action, indexPath: IndexPath, itemCount: Int, space: Space)
    /// Two operations name the same section in the same space.
    case sectionNamedTwice(section: Int, space: Space, first: UpdateItem.Action, second: UpdateItem.Action)
    /// Two operations name the same item in the same space.
    case itemNamedTwice(indexPath: IndexPath, space: Space, first: UpdateItem.Action, second: UpdateItem.Action)
    /// An item operation inside a section that is being deleted.
    case itemInDeletedSection(action: UpdateItem.Action, indexPath: IndexPath)
    /// An item operation inside a section that is being inserted.
    case itemInInsertedSection(action: UpdateItem.Action, indexPath: IndexPath)
    /// An item operation inside a section that is being reloaded.
    case itemInReloadedSection(action: UpdateItem.Action, indexPath: IndexPath, space: Space)
    /// An item operation inside a section that is being moved (UIKit rules).
    case itemInMovedSection(action: UpdateItem.Action, indexPath: IndexPath, space: Space)
    /// A reload says it lands somewhere other than where the other
    /// operations put its element.
    case reloadLandsElsewhere(indexPath: IndexPath, claimed: IndexPath, actual: IndexPath)
    /// The number of sections does not add up.
    case invalidSectionCount(before: Int, after: Int, inserted: Int, deleted: Int)
    /// The number of items of a surviving section does not add up.
    case invalidItemCount(
        section: Int,
        sectionBefore: Int,
        before: Int,
        after: Int,
        inserted: Int,
        deleted: Int,
        movedIn: Int,
        movedOut: Int
    )
}

extension BatchValidationError: CustomStringConvertible {
    /// The message, in the words of UIKit's "Invalid update" where UIKit has
    /// one.
    public var description: String {
        switch self {
        case let .malformedItem(item, reason):
            return "Invalid update: malformed update item (\(item)): \(reason)"
        case let .negativeSectionCount(count, space):
            return "Invalid update: the number of sections \(space) the update is \(count); a count cannot be negative"
        case let .negativeItemCount(section, count, space):
            return "Invalid update: the number of items in section \(section) \(space) the update is \(count); a count cannot be negative"
        case let .sectionOutOfRange(action, section, count, space):
            let target = action == .move && space == .after
                ? "move a section to section \(section)" : "\(Self.verb(action, space)) section \(section)"
            return "Invalid update: attempt to \(target), but there are only \(count) sections \(space) the update"
        case let .sectionOfItemOutOfRange(action, path, count, space):
            return "Invalid update: attempt to \(Self.itemPhrase(action, path, space)), but there are only \(count) sections \(space) the update"
        case let .itemOutOfRange(action, path, count, space):
            if space == .before {
                return "Invalid update: attempt to \(Self.itemPhrase(action, path, space)) which only contains \(count) items before the update"
            }
            return "Invalid update: attempt to \(Self.itemPhrase(action, path, space)), but there are only \(count) items in section \(path[0]) after the update"
        case let .sectionNamedTwice(section, space, first, second):
            return "Invalid update: attempt to perform \(Self.article(first)) and \(Self.article(second)) \(space == .before ? "from" : "to") the same section (\(section))"
        case let .itemNamedTwice(path, space, first, second):
            return "Invalid update: attempt to perform \(Self.article(first)) and \(Self.article(second)) \(space == .before ? "from" : "to") the same index path (\(path.tesseraDescription))"
        case let .itemInDeletedSection(action, path):
            return "Invalid update: attempt to \(Self.itemPhrase(action, path, .before)), but section \(path[0]) is being deleted"
        case let .itemInInsertedSection(action, path):
            return "Invalid update: attempt to \(Self.itemPhrase(action, path, .after)), but section \(path[0]) is being inserted"
        case let .itemInReloadedSection(action, path, space):
            return "Invalid update: attempt to \(Self.itemPhrase(action, path, space)), but section \(path[0]) is being reloaded"
        case let .itemInMovedSection(action, path, space):
            return "Invalid update: attempt to \(Self.itemPhrase(action, path, space)), but section \(path[0]) is being moved; "
                + "UIKit cannot change items inside a moved section (stage the update, or delete and insert the section)"
        case let .reloadLandsElsewhere(path, claimed, actual):
            return "Invalid update: the reload of \(path.tesseraDescription) says it lands at \(claimed.tesseraDescription), "
                + "but the other operations of the update put it at \(actual.tesseraDescription)"
        case let .invalidSectionCount(before, after, inserted, deleted):
            return "Invalid update: invalid number of sections. The number of sections contained in the collection view after the update (\(after)) "
                + "must be equal to the number of sections contained in the collection view before the update (\(before)), "
                + "plus or minus the number of sections inserted or deleted (\(inserted) inserted, \(deleted) deleted)."
        case let .invalidItemCount(section, sectionBefore, before, after, inserted, deleted, movedIn, movedOut):
            let was = section == sectionBefore ? "" : " (section \(sectionBefore) before the update)"
            return "Invalid update: invalid number of items in section \(section)\(was). "
                + "The number of items contained in an existing section after the update (\(after)) "
                + "must be equal to the number of items contained in that section before the update (\(before)), "
                + "plus or minus the number of items inserted or deleted from that section (\(inserted) inserted, \(deleted) deleted) "
                + "and plus or minus the number of items moved into or out of that section (\(movedIn) moved in, \(movedOut) moved out)."
        }
    }

    private static func verb(_ action: UpdateItem.Action, _ space: Space) -> String {
        switch action {
        case .insert: return "insert"
        case .delete: return "delete"
        case .reload: return space == .before ? "reload" : "reload to"
        case .move: return "move"
        case .none: return "name"
        }
    }

    private static func article(_ action: UpdateItem.Action) -> String {
        switch action {
        case .insert: return "an insert"
        case .delete: return "a delete"
        case .reload: return "a reload"
        case .move: return "a move"
        case .none: return "a no-op"
        }
    }

    private static func itemPhrase(_ action: UpdateItem.Action, _ path: IndexPath, _ space: Space) -> String {
        let item = path.count > 1 ? path[1] : 0
        let section = path[0]
        switch (action, space) {
        case (.insert, _): return "insert item \(item) into section \(section)"
        case (.delete, _): return "delete item \(item) from section \(section)"
        case (.reload, .before): return "reload item \(item) from section \(section)"
        case (.reload, .after): return "reload an item to item \(item) of section \(section)"
        case (.move, .before): return "move item \(item) from section \(section)"
        case (.move, .after): return "move an item to item \(item) of section \(section)"
        case (.none, _): return "name item \(item) of section \(section)"
        }
    }
}
