import TesseraDiff
import TesseraRender

/// A section of a snapshot file: an id and any JSON content.
package struct DocumentSection: Identifiable, Hashable, Sendable {
    /// The id, as text (a JSON number id is its digits).
    package var id: String
    /// The content (`null` when the file gives none); a different content
    /// with the same id is an update.
    package var content: JSON

    /// Creates a section.
    package init(id: String, content: JSON = .null) {
        self.id = id
        self.content = content
    }
}

/// An item of a snapshot file: an id and any JSON content.
package struct DocumentItem: Identifiable, Hashable, Sendable {
    /// The id, as text (a JSON number id is its digits).
    package var id: String
    /// The content (`null` when the file gives none); a different content
    /// with the same id is a reload.
    package var content: JSON

    /// Creates an item.
    package init(id: String, content: JSON = .null) {
        self.id = id
        self.content = content
    }
}

/// The snapshot file format of `tessera diff`:
///
/// ```json
/// {
///   "sections": [
///     { "id": "holidays", "content": "Holidays",
///       "items": [ { "id": 1, "content": { "title": "Beach" } },
///                  { "id": 2, "content": { "title": "Dunes" } } ] },
///     { "id": "family", "items": [] }
///   ]
/// }
/// ```
///
/// Ids are strings or integers and must be unique: among sections, and
/// among all items of the snapshot. An integer id is kept as its digits, so
/// `1` and `"1"` are the same id: in one file they are a duplicate, and in
/// the two files of a diff they are the same element. `content` is optional
/// and may be any JSON; equal ids with different content are updates
/// (reloads).
/// A top-level array is accepted as the `sections` array.
package enum SnapshotDocument {
    /// The snapshot type the files hold.
    package typealias DocumentSnapshot = Snapshot<DocumentSection, DocumentItem>

    /// Reads a snapshot file.
    ///
    /// - Throws: ``CommandError`` naming the file and, for a problem
    ///   inside it, where (`sections[1].items[0]: …`) or which id is twice.
    package static func load(path: String) throws(CommandError) -> DocumentSnapshot {
        try decode(InputFile.json(at: path), name: path)
    }

    /// Makes a snapshot from parsed JSON; `name` is used in messages.
    ///
    /// - Throws: ``CommandError``.
    package static func decode(_ json: JSON, name: String) throws(CommandError) -> DocumentSnapshot {
        func fail(_ message: String) -> CommandError {
            CommandError("\(name): \(message)", exitCode: CommandError.inputExitCode)
        }
        let sectionsValue: JSON
        switch json {
        case .array: sectionsValue = json
        case .object:
            guard let value = json["sections"] else { throw fail("missing \"sections\": expected {\"sections\": [...]}") }
            sectionsValue = value
        default:
            throw fail("expected an object with \"sections\", found \(json.kindName)")
        }
        guard case let .array(sectionValues) = sectionsValue else {
            throw fail("\"sections\" must be an array, found \(sectionsValue.kindName)")
        }
        func id(of value: JSON, at place: String) throws(CommandError) -> String {
            guard let idValue = value["id"] else { throw fail("\(place): missing \"id\"") }
            switch idValue {
            case let .string(text): return text
            case let .number(text) where !text.contains(".") && !text.contains("e") && !text.contains("E"): return text
            default: throw fail("\(place): \"id\" must be a string or an integer, found \(idValue.kindName)")
            }
        }
        var snapshot = DocumentSnapshot()
        var sectionPlaces: [String: String] = [:]
        var itemPlaces: [String: String] = [:]
        for (s, sectionValue) in sectionValues.enumerated() {
            let place = "sections[\(s)]"
            guard case .object = sectionValue else { throw fail("\(place) must be an object, found \(sectionValue.kindName)") }
            let sectionID = try id(of: sectionValue, at: place)
            if let first = sectionPlaces[sectionID] {
                throw fail("duplicate section id \"\(sectionID)\" at \(first) and \(place)")
            }
            sectionPlaces[sectionID] = place
            var items: [DocumentItem] = []
            if let itemsValue = sectionValue["items"] {
                guard case let .array(itemValues) = itemsValue else {
                    throw fail("\(place).items must be an array, found \(itemsValue.kindName)")
                }
                for (i, itemValue) in itemValues.enumerated() {
                    let itemPlace = "\(place).items[\(i)]"
                    guard case .object = itemValue else { throw fail("\(itemPlace) must be an object, found \(itemValue.kindName)") }
                    let itemID = try id(of: itemValue, at: itemPlace)
                    if let first = itemPlaces[itemID] {
                        throw fail("duplicate item id \"\(itemID)\" at \(first) and \(itemPlace)")
                    }
                    itemPlaces[itemID] = itemPlace
                    items.append(DocumentItem(id: itemID, content: itemValue["content"] ?? .null))
                }
            }
            snapshot.appendSection(DocumentSection(id: sectionID, content: sectionValue["content"] ?? .null), items: items)
        }
        return snapshot
    }
}
