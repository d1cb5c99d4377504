/// A section of a ``MutableResultsController``: the section key its
/// elements share.
///
/// The key is both the identity and the whole content of the section, so a
/// keyed section is inserted, deleted or moved, never updated.
public struct KeyedSection<Key: Hashable>: Identifiable, Hashable {
    /// The section key.
    public var key: Key
    /// The key identifies the section.
    public var id: Key { key }

    /// Creates a section for a key.
    public init(_ key: Key) {
        self.key = key
    }
}

extension KeyedSection: Sendable where Key: Sendable {}

extension KeyedSection: CustomStringConvertible {
    /// The key, for logs and test failures.
    public var description: String { "\(key)" }
}
