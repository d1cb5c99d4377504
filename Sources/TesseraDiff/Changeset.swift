#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The difference between two sectioned snapshots, in UIKit's index spaces.
///
/// - Old space: `sectionDeletes`, `itemDeletes`, the `from` of moves and of
///   updates.
/// - New space: `sectionInserts`, `itemInserts`, the `to` of moves and of
///   updates.
///
/// Items inside deleted or inserted sections get no item operations: the
/// whole section goes or comes at once. An item whose section changes is an
/// item move across sections (or a delete or an insert where its old section
/// is deleted or its new one inserted). Every array is sorted ascending by its
/// first index.
public struct Changeset: Hashable, Codable, Sendable {
    /// Old indexes of sections that are gone.
    public var sectionDeletes: [Int]
    /// New indexes of sections that are new.
    public var sectionInserts: [Int]
    /// Sections whose order relative to the other surviving sections changed.
    public var sectionMoves: [Move<Int>]
    /// Sections with the same id and different content, old → new index.
    public var sectionUpdates: [Move<Int>]
    /// Old index paths of items that are gone from surviving sections.
    public var itemDeletes: [IndexPath]
    /// New index paths of items that are new in surviving sections.
    public var itemInserts: [IndexPath]
    /// Items that moved within a section (out of the section's longest
    /// increasing subsequence) or across sections.
    public var itemMoves: [Move<IndexPath>]
    /// Items with the same id and different content, old → new index path.
    public var itemUpdates: [Move<IndexPath>]

    /// Creates a changeset from its parts.
    public init(
        sectionDeletes: [Int] = [],
        sectionInserts: [Int] = [],
        sectionMoves: [Move<Int>] = [],
        sectionUpdates: [Move<Int>] = [],
        itemDeletes: [IndexPath] = [],
        itemInserts: [IndexPath] = [],
        itemMoves: [Move<IndexPath>] = [],
        itemUpdates: [Move<IndexPath>] = []
    ) {
        self.sectionDeletes = sectionDeletes
        self.sectionInserts = sectionInserts
        self.sectionMoves = sectionMoves
        self.sectionUpdates = sectionUpdates
        self.itemDeletes = itemDeletes
        self.itemInserts = itemInserts
        self.itemMoves = itemMoves
        self.itemUpdates = itemUpdates
    }

    /// Whether the two snapshots were the same.
    public var isEmpty: Bool {
        sectionDeletes.isEmpty && sectionInserts.isEmpty && sectionMoves.isEmpty && sectionUpdates.isEmpty
            && itemDeletes.isEmpty && itemInserts.isEmpty && itemMoves.isEmpty && itemUpdates.isEmpty
    }

    /// The number of section and item operations of all kinds.
    public var changeCount: Int {
        sectionDeletes.count + sectionInserts.count + sectionMoves.count + sectionUpdates.count
            + itemDeletes.count + itemInserts.count + itemMoves.count + itemUpdates.count
    }
}
