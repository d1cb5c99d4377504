/// One committed transaction's change to a ``FetchedSetController``'s
/// records: which came, which went, and which changed content.
///
/// Each list is ordered by key, as SQLite orders the key column's values
/// (NULL, then numbers, then text by bytes, then blobs), so a report is
/// the same whichever way the controller found it. A report that merged
/// several under load (see ``ReportSequence``) lists the records of the
/// earlier commits first, and a record deleted after an update is listed
/// with its updated content.
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

extension SetChangeReport {
    /// Two consecutive reports as one, by id: a record inserted then
    /// deleted drops out, one deleted then inserted again is an update
    /// (when its content changed), updates keep the latest content. Records
    /// keep the order they had in the reports they came from, earlier
    /// report first.
    ///
    /// - Complexity: O(*k*) in the number of changed records.
    static var merging: _ReportMerging<SetChangeReport> {
        _ReportMerging(
            merge: { a, b in
                let bDeleted = Set(b.deleted.map(\.id))
                let bInserted = Dictionary(b.inserted.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let bUpdated = Dictionary(b.updated.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let aInserted = Set(a.inserted.map(\.id))
                let aUpdated = Set(a.updated.map(\.id))
                let aDeleted = Set(a.deleted.map(\.id))
                var inserted: [Record] = []
                var deleted: [Record] = []
                var updated: [Record] = []
                for record in a.inserted where !bDeleted.contains(record.id) {
                    inserted.append(bUpdated[record.id] ?? record)
                }
                for record in a.deleted {
                    if let again = bInserted[record.id] {
                        if again != record { updated.append(again) }
                    } else {
                        deleted.append(record)
                    }
                }
                for record in a.updated {
                    if bDeleted.contains(record.id) { deleted.append(record) } else { updated.append(bUpdated[record.id] ?? record) }
                }
                for record in b.inserted where !aDeleted.contains(record.id) { inserted.append(record) }
                for record in b.deleted where !aInserted.contains(record.id) && !aUpdated.contains(record.id) { deleted.append(record) }
                for record in b.updated where !aInserted.contains(record.id) && !aUpdated.contains(record.id) { updated.append(record) }
                return SetChangeReport(inserted: inserted, deleted: deleted, updated: updated, oldCount: a.oldCount, newCount: b.newCount)
            },
            resolve: { $0 }
        )
    }
}
