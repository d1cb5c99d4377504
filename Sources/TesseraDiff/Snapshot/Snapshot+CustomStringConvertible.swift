extension Snapshot: CustomStringConvertible {
    /// One line per section: the section's id, then its items' ids.
    ///
    /// - Complexity: O(*n* + *s*).
    public var description: String {
        var lines: [String] = []
        for s in 0..<numberOfSections {
            let ids = items(inSection: s).map { "\($0.id)" }.joined(separator: ", ")
            lines.append("\(_sections[s].id): [\(ids)]")
        }
        return "Snapshot(\(lines.joined(separator: "; ")))"
    }
}
