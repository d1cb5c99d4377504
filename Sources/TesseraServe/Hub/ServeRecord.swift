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

    /// Reads a record from a row of ``ServeSchema/query``.
    package init(row: Row) throws {
        key = row[ServeSchema.keyAlias]
        id = ServeSchema.text(of: key)
        section = ServeSchema.text(of: row[ServeSchema.sectionAlias])
        title = ServeSchema.text(of: row[ServeSchema.titleAlias])
    }

    /// Creates a record from its parts.
    package init(id: String, key: DatabaseValue, section: String, title: String) {
        self.id = id
        self.key = key
        self.section = section
        self.title = title
    }

    /// Whether the id, section and title are equal.
    package static func == (lhs: ServeRecord, rhs: ServeRecord) -> Bool {
        lhs.id == rhs.id && lhs.section == rhs.section && lhs.title == rhs.title
    }

    /// Hashes the id, section and title.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(section)
        hasher.combine(title)
    }
}
