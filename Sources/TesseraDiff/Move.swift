/// A move of one element from an index in the old state to an index in the
/// new state.
///
/// `Move<Int>` names offsets in a flat list; `Move<IndexPath>` names index
/// paths in a sectioned snapshot. The same type carries content updates
/// (`updates` in a changeset), where `from` and `to` are the element's old and
/// new positions.
public struct Move<Index: Hashable & Codable>: Hashable, Codable {
    /// The element's position in the old state.
    public var from: Index
    /// The element's position in the new state.
    public var to: Index

    /// Creates a move from an old position to a new one.
    @inlinable
    public init(from: Index, to: Index) {
        self.from = from
        self.to = to
    }
}

extension Move: Sendable where Index: Sendable {}

extension Move: CustomStringConvertible {
    /// `from→to`, for logs and test failures.
    public var description: String { "\(from)→\(to)" }
}
