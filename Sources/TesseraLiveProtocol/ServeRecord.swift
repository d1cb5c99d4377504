import Foundation
import TesseraResults
import TesseraSQLite

/// An item of the served list: one row of the configured table, read
/// through the aliases ``ServeSchema`` gives its columns.
///
/// Two records are equal when their id, section and title are: those are
/// what a client shows, so a change to the order column alone (a
/// renumbering) or to any other column is no change to the list.
package struct ServeRecord: FetchableRecord, Hashable {
    /// The key as text: the primary key's value, or the row id.
    package var id: String
    /// The key as stored, for the statements of edits.
    package var key: DatabaseValue
    /// The section's value as text (empty for one section).
    package var section: String
    /// The title's value as text.
    package var title: String

    /// The columns a record reads from a row of the table itself (see
    /// ``ServeSchema/request``).
    package struct TableColumns: Sendable, Hashable {
        /// The key column.
        package var key: String
        /// The section column, if any.
        package var section: String?
        /// The title column.
        package var title: String
    }

    /// The columns of the table request being read, bound by the hub
    /// around every call that may read records; `nil` while rows of
    /// ``ServeSchema/query`` are read.
    @TaskLocal package static var tableColumns: TableColumns?

    /// Reads a record from a row of ``ServeSchema/query``, or of the table
    /// whose columns ``tableColumns`` names.
    ///
    /// - Throws: ``ServeRecordError`` for a row that has neither the
    ///   query's aliases nor columns bound in ``tableColumns``.
    package init(row: Row) throws {
        if let columns = Self.tableColumns {
            key = row[columns.key]
            section = columns.section.map { ServeSchema.text(of: row[$0]) } ?? ""
            title = ServeSchema.text(of: row[columns.title])
        } else {
            guard row.columnNames.contains(ServeSchema.keyAlias) else { throw ServeRecordError() }
            key = row[ServeSchema.keyAlias]
            section = ServeSchema.text(of: row[ServeSchema.sectionAlias])
            title = ServeSchema.text(of: row[ServeSchema.titleAlias])
        }
        id = ServeSchema.text(of: key)
    }

    /// Creates a record from its parts.
    package init(id: String, key: DatabaseValue, section: String, title: String) {
        self.id = id
        self.key = key
        self.section = section
        self.title = title
    }

    /// Whether the id, section and title are equal, byte for byte: Swift's
    /// `==` takes a title changed only from one spelling of an accented
    /// letter to the other as unchanged, and the change would never reach
    /// the browser (which, like the database, tells the two apart). Each
    /// text is compared as `DatabaseValue` compares text: the lengths, then
    /// one `memcmp`.
    ///
    /// - Complexity: O(*n*) in the texts' lengths.
    package static func == (lhs: ServeRecord, rhs: ServeRecord) -> Bool {
        DatabaseValue.text(lhs.id) == .text(rhs.id) && DatabaseValue.text(lhs.section) == .text(rhs.section)
            && DatabaseValue.text(lhs.title) == .text(rhs.title)
    }

    /// Hashes the id, section and title by their bytes.
    ///
    /// - Complexity: O(*n*) in the texts' lengths.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(DatabaseValue.text(id))
        hasher.combine(DatabaseValue.text(section))
        hasher.combine(DatabaseValue.text(title))
    }
}

/// A row read without the columns its request needs: a table's row read
/// with no ``ServeRecord/tableColumns`` bound.
package struct ServeRecordError: Error, CustomStringConvertible, Sendable {
    /// Says so.
    package var description: String { "a row of the served table was read without the columns its records need" }
}

extension FetchedResult where Record == ServeRecord {
    /// The id of the item at an index path: its key as text, read without
    /// the record when the list is lazy and has its keys, otherwise from the
    /// record; `nil` when a lazy list cannot read it.
    ///
    /// - Complexity: O(log *n*), plus a batch read when the record is read
    ///   and not kept.
    package func id(at indexPath: IndexPath) -> String? {
        if let key = key(at: indexPath) { return ServeSchema.text(of: key) }
        return try? record(at: indexPath).id
    }
}
