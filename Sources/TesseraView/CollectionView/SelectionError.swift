#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A selection or highlight the view refuses, naming what and where. The
/// selection, the highlight and the touch are left as they were.
public enum SelectionError: Error, Hashable, Sendable {
    /// The index path names no item: `numberOfSections` sections, and
    /// `numberOfItems` items in its section (`nil` when the section does
    /// not exist or the index path does not have two indexes).
    case indexPathOutOfRange(indexPath: IndexPath, numberOfSections: Int, numberOfItems: Int?)
    /// ``CollectionView/allowsSelection`` is `false`.
    case selectionNotAllowed(indexPath: IndexPath)
    /// A touch began while another, on `touchedIndexPath`, has not ended
    /// (`nil` when the touched item was deleted meanwhile).
    case touchInProgress(touchedIndexPath: IndexPath?)
    /// A touch ended that never began.
    case noTouchInProgress
    /// No item of the data source has this id (its description).
    case unknownItemID(String)
    /// `operation` was called from inside a batch update, a
    /// ``CollectionView/reloadData()``, a read of the data source's counts
    /// or a pass that sizes items (by the data source or a layout delegate
    /// the view was asking): the view is between two states then, and the
    /// index path would name an item of one while the selection follows
    /// the items into the other. Call it once the update has returned.
    case updateInProgress(operation: String)
}

extension SelectionError: CustomStringConvertible {
    /// What was refused, and where.
    public var description: String {
        func text(_ path: IndexPath) -> String { "[\(path.map(String.init).joined(separator: ", "))]" }
        switch self {
        case let .indexPathOutOfRange(indexPath, _, items?):
            return "the index path \(text(indexPath)) names no item: section \(indexPath[0]) has \(items) items"
        case let .indexPathOutOfRange(indexPath, sections, nil):
            return "the index path \(text(indexPath)) names no item: the view has \(sections) sections"
        case let .selectionNotAllowed(indexPath):
            return "cannot select the item at \(text(indexPath)): the view does not allow selection"
        case let .touchInProgress(path?):
            return "a touch began while the touch on \(text(path)) has not ended"
        case .touchInProgress(nil):
            return "a touch began while another (on an item since deleted) has not ended"
        case .noTouchInProgress:
            return "a touch ended that never began"
        case let .unknownItemID(id):
            return "no item has the id \(id)"
        case let .updateInProgress(operation):
            return "\(operation) was called during a batch update, a reload or a sizing pass of the collection view; call it after the update returns"
        }
    }
}
