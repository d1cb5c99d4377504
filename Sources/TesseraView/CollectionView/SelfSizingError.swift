#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraLayout

/// Why a collection view could not use an item's fitted size. The item
/// keeps the size it had, and nothing else changes.
public enum SelfSizingError: Error, Hashable, Sendable {
    /// The data source gave a size that is NaN, infinite, negative or
    /// beyond ``LayoutValue/maximumLength`` for the item at `indexPath`.
    case invalidSize(indexPath: IndexPath, size: Size)
    /// No item has this index path.
    case itemNotFound(IndexPath)
}

extension SelfSizingError: CustomStringConvertible {
    /// A sentence naming the item and the size.
    public var description: String {
        switch self {
        case let .invalidSize(path, size):
            return "invalid fitted size for item \(path.count > 1 ? path[1] : 0) in section \(path.count > 0 ? path[0] : 0): \(size.width) × \(size.height); sizes must be finite, not negative and at most 10^12 points"
        case let .itemNotFound(path):
            return "no item at index path \(Array(path)) to size"
        }
    }
}
