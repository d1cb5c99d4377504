/// The edits a live list lets its clients make (what `LiveList.Edits` says
/// to the hub).
package struct ServeEdits: OptionSet, Sendable, Hashable {
    package let rawValue: Int

    /// Creates a set from its raw value.
    package init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `move`.
    package static let move = ServeEdits(rawValue: 1 << 0)
    /// `rename`.
    package static let rename = ServeEdits(rawValue: 1 << 1)
    /// `delete`.
    package static let delete = ServeEdits(rawValue: 1 << 2)
    /// `add`.
    package static let add = ServeEdits(rawValue: 1 << 3)
    /// Every edit.
    package static let all: ServeEdits = [.move, .rename, .delete, .add]

    /// The edits in the order the protocol names them, with their names.
    package static let named: [(edit: ServeEdits, name: String)] = [(.move, "move"), (.rename, "rename"), (.delete, "delete"), (.add, "add")]

    /// The edit a message asks for, or `nil` for one that is not an edit.
    package static func of(_ message: ServeMessage) -> (edit: ServeEdits, name: String)? {
        switch message {
        case .move: (.move, "move")
        case .rename: (.rename, "rename")
        case .delete: (.delete, "delete")
        case .add: (.add, "add")
        case .hello, .viewport: nil
        }
    }
}
