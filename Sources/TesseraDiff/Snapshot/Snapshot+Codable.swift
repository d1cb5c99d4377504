/// The keys of one section's entry in a snapshot's encoded form.
@usableFromInline
enum _SnapshotCodingKeys: String, CodingKey {
    case section, items
}

extension Snapshot: Encodable where Section: Encodable, Item: Encodable {
    /// Encodes the snapshot as an array of `{"section": …, "items": [...]}`
    /// objects, in section order.
    ///
    /// - Complexity: O(*n* + *s*).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for s in 0..<numberOfSections {
            var entry = container.nestedContainer(keyedBy: _SnapshotCodingKeys.self)
            try entry.encode(_sections[s], forKey: .section)
            try entry.encode(Array(items(inSection: s)), forKey: .items)
        }
    }
}

extension Snapshot: Decodable where Section: Decodable, Item: Decodable {
    /// Decodes the form ``encode(to:)`` writes.
    ///
    /// - Complexity: O(*n* + *s*).
    public init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            let entry = try container.nestedContainer(keyedBy: _SnapshotCodingKeys.self)
            let section = try entry.decode(Section.self, forKey: .section)
            let items = try entry.decode([Item].self, forKey: .items)
            appendSection(section, items: items)
        }
    }
}
