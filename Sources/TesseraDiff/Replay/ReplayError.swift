#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Why a changeset or batch could not be replayed on a snapshot.
public enum ReplayError: Error, Hashable, Sendable {
    /// The batch breaks a rule; the validator's error says which.
    case invalidBatch(BatchValidationError)
    /// An inserted section's index is not a section of the target snapshot.
    case insertedSectionMissing(section: Int)
    /// An inserted item's index path is not an item of the target snapshot.
    case insertedItemMissing(indexPath: IndexPath)
    /// A reloaded section's id is not in the target snapshot.
    case reloadedSectionMissing(section: Int, id: String)
    /// A reloaded item's id is not in the target snapshot.
    case reloadedItemMissing(indexPath: IndexPath, id: String)
    /// An update names an element that is not where the update says it ends up.
    case updateMismatch(from: IndexPath, to: IndexPath)
}

extension ReplayError: CustomStringConvertible {
    /// A sentence naming the operation and where it failed.
    public var description: String {
        switch self {
        case let .invalidBatch(error):
            return error.description
        case let .insertedSectionMissing(section):
            return "cannot replay: section \(section) is inserted, but the target snapshot has no section \(section)"
        case let .insertedItemMissing(path):
            return "cannot replay: item \(path.tesseraDescription) is inserted, but the target snapshot has no such item"
        case let .reloadedSectionMissing(section, id):
            return "cannot replay: section \(section) (id \(id)) is reloaded, but the target snapshot has no section with that id"
        case let .reloadedItemMissing(path, id):
            return "cannot replay: item \(path.tesseraDescription) (id \(id)) is reloaded, but the target snapshot has no item with that id"
        case let .updateMismatch(from, to):
            return "cannot replay: the update \(from.tesseraDescription) → \(to.tesseraDescription) names an element that does not end up there"
        }
    }
}
