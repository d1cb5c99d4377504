import TesseraLiveHub
import TesseraLiveProtocol

extension LiveList {
    /// The edits a live list lets its clients make. An edit it does not
    /// allow is answered with an `error` of code `readOnly`, and nothing is
    /// written.
    public struct Edits: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        /// Creates a set from its raw value.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// `move`: drag an item to another place in its section (needs an
        /// order column that the list is sorted by).
        public static let move = Edits(rawValue: 1 << 0)
        /// `rename`: write an item's title.
        public static let rename = Edits(rawValue: 1 << 1)
        /// `delete`: delete items, all of a message's or none.
        public static let delete = Edits(rawValue: 1 << 2)
        /// `add`: add an item at the end of a section.
        public static let add = Edits(rawValue: 1 << 3)
        /// Every edit.
        public static let all: Edits = [.move, .rename, .delete, .add]
        /// No edit: the list is read only.
        public static let none: Edits = []

        /// The same set, as the hub takes it.
        package var hubEdits: ServeEdits { ServeEdits(rawValue: rawValue) }
    }

    /// The columns of the table a live list shows.
    public struct Columns: Sendable, Hashable {
        /// The column items are grouped into sections by, or `nil` for one
        /// section.
        public var section: String?
        /// The column items are sorted by within their section; ties are
        /// broken by the key.
        public var sort: String
        /// Whether ``sort`` sorts descending.
        public var sortDescending: Bool
        /// The column whose text an item shows.
        public var title: String
        /// An integer column that `move` edits write, or `nil` when the
        /// list cannot be reordered. Moves need the list sorted by it
        /// (``sort`` names the same column).
        public var order: String?

        /// Creates the columns of a list. Names are matched without regard
        /// to case, as SQLite matches them.
        public init(section: String? = nil, sort: String, sortDescending: Bool = false, title: String, order: String? = nil) {
            self.section = section
            self.sort = sort
            self.sortDescending = sortDescending
            self.title = title
            self.order = order
        }
    }
}
