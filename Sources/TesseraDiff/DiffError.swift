#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An input the diff cannot work with.
///
/// Every case names the culprit: the id (as text), which snapshot it is in,
/// and both positions where it appears.
public enum DiffError: Error, Hashable, Sendable {
    /// Which side of a diff an input came from.
    public enum Side: String, Hashable, Codable, Sendable {
        /// The state before (`from`).
        case old
        /// The state after (`to`).
        case new
    }

    /// Two elements of a flat list share an id.
    case duplicateElementID(id: String, side: Side, firstOffset: Int, secondOffset: Int)
    /// Two sections of a snapshot share an id.
    case duplicateSectionID(id: String, side: Side, firstSection: Int, secondSection: Int)
    /// Two items of a snapshot share an id (in the same section or in two).
    case duplicateItemID(id: String, side: Side, first: IndexPath, second: IndexPath)
}

extension DiffError: CustomStringConvertible {
    /// A sentence naming the duplicate id and both of its positions.
    public var description: String {
        switch self {
        case let .duplicateElementID(id, side, first, second):
            return "duplicate element id \(id) in the \(side.rawValue) list: at offsets \(first) and \(second)"
        case let .duplicateSectionID(id, side, first, second):
            return "duplicate section id \(id) in the \(side.rawValue) snapshot: sections \(first) and \(second)"
        case let .duplicateItemID(id, side, first, second):
            return "duplicate item id \(id) in the \(side.rawValue) snapshot: at \(first.tesseraDescription) and \(second.tesseraDescription)"
        }
    }
}
