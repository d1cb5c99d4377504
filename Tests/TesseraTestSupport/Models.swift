import TesseraDiff

/// An item for tests: an integer id and an integer of content.
public struct TestItem: Identifiable, Hashable, Codable, Sendable, CustomStringConvertible {
    public var id: Int
    public var content: Int

    public init(id: Int, content: Int = 0) {
        self.id = id
        self.content = content
    }

    public var description: String { content == 0 ? "\(id)" : "\(id)'\(content)" }
}

/// A section for tests: an integer id and an integer of content.
public struct TestSection: Identifiable, Hashable, Codable, Sendable, CustomStringConvertible {
    public var id: Int
    public var content: Int

    public init(id: Int, content: Int = 0) {
        self.id = id
        self.content = content
    }

    public var description: String { content == 0 ? "S\(id)" : "S\(id)'\(content)" }
}

/// The snapshot type most tests use.
public typealias TestSnapshot = Snapshot<TestSection, TestItem>

extension Snapshot where Section == TestSection, Item == TestItem {
    /// Builds a snapshot from section ids and item ids with no content:
    /// `TestSnapshot([0: [1, 2], 1: [3]])` in the order given.
    public init(_ layout: KeyValuePairs<Int, [Int]>) {
        self.init()
        for (section, items) in layout {
            appendSection(TestSection(id: section), items: items.map { TestItem(id: $0) })
        }
    }
}
