/// One committed transaction's change to a ``FetchedSetController``'s
/// records: which came, which went, and which changed content.
///
/// Each list is ordered by key, as SQLite orders the key column's values
/// (NULL, then numbers, then text by bytes, then blobs), so a report is
/// the same whichever way the controller found it.
public struct SetChangeReport<Record: FetchableRecord>: Sendable {
    /// Records that now match and did not.
    public var inserted: [Record]
    /// Records that matched and no longer do, as they were.
    public var deleted: [Record]
    /// Records that still match with different content, as they are now.
    public var updated: [Record]
    /// The number of records before.
    public var oldCount: Int
    /// The number of records after.
    public var newCount: Int

    /// Creates a report.
    public init(inserted: [Record], deleted: [Record], updated: [Record], oldCount: Int, newCount: Int) {
        self.inserted = inserted
        self.deleted = deleted
        self.updated = updated
        self.oldCount = oldCount
        self.newCount = newCount
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && updated.isEmpty }
}

extension SetChangeReport: Equatable where Record: Equatable {}
