extension FetchedResult {
    /// Whether `other` is this very state of the result, shared (a report's
    /// result after and the next report's result before, say), not only an
    /// equal one: then every count, section and record of the two agree,
    /// with nothing to compare or read.
    ///
    /// - Complexity: O(1).
    package func isSameState(as other: FetchedResult) -> Bool {
        state === other.state
    }
}
