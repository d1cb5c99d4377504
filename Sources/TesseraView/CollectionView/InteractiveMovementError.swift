#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff
public import TesseraLayout

/// Why a step of an interactive movement (``CollectionView/beginInteractiveMovementForItem(at:)``
/// and the calls that follow it) was refused. Every case but
/// ``dataSourceCountsMismatch(expected:actual:)`` leaves the collection
/// view, its layout and the movement in progress exactly as they were.
public enum InteractiveMovementError: Error, Hashable, Sendable {
    /// The index path names no item the view shows.
    case indexPathOutOfRange(IndexPath, itemCounts: [Int])
    /// A movement is already in progress, of the item at `indexPath`
    /// (its original index path).
    case movementInProgress(IndexPath)
    /// No movement is in progress; `operation` names the call.
    case noMovementInProgress(operation: String)
    /// The data source's `collectionView(_:canMoveItemAt:)` says no for the
    /// item at the index path (the default, as in UIKit).
    case itemCannotMove(IndexPath)
    /// The view has no data source.
    case noDataSource
    /// A position with a coordinate that is NaN or infinite.
    case positionNotFinite(Point)
    /// After `collectionView(_:moveItemAt:to:)` the data source's counts
    /// are not the ones the view presented: the view reloaded its data from
    /// the data source, and the movement is over.
    case dataSourceCountsMismatch(expected: [Int], actual: [Int])
    /// The view's batch update refused a step (its counts and the
    /// movement's disagree); the movement is as it was.
    case batchUpdateFailed(BatchValidationError)
    /// `operation` was called from inside a batch update, a
    /// ``CollectionView/reloadData()``, a read of the data source's counts
    /// or a pass that sizes items (by the data source or a layout delegate
    /// the view was asking): the view is between two states then. Call it
    /// once the update has returned.
    case updateInProgress(operation: String)
}

extension InteractiveMovementError: CustomStringConvertible {
    /// A sentence naming the culprit.
    public var description: String {
        switch self {
        case let .indexPathOutOfRange(path, counts):
            return "No item at \(path.tesseraDescription) to move: the view shows \(counts.count) section(s) with item counts \(counts)"
        case let .movementInProgress(path):
            return "An interactive movement of the item at \(path.tesseraDescription) is already in progress"
        case let .noMovementInProgress(operation):
            return "\(operation) needs an interactive movement in progress, and there is none"
        case let .itemCannotMove(path):
            return "The data source says the item at \(path.tesseraDescription) cannot move (collectionView(_:canMoveItemAt:))"
        case .noDataSource:
            return "The collection view has no data source to move an item in"
        case let .positionNotFinite(point):
            return "The movement's position (\(point.x), \(point.y)) is not finite"
        case let .dataSourceCountsMismatch(expected, actual):
            return "After moving the item, the data source gives item counts \(actual) where the view presented \(expected); the view reloaded its data"
        case let .batchUpdateFailed(error):
            return "The movement's update was refused: \(error)"
        case let .updateInProgress(operation):
            return "\(operation) was called during a batch update, a reload or a sizing pass of the collection view; call it after the update returns"
        }
    }
}
