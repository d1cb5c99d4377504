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

    /// Whether ``snapshot`` was made for this state of the result (by any
    /// copy of it): a way for tests to see that code that reads the result
    /// record by record never copied it whole.
    package var hasMadeSnapshot: Bool { state.hasMadeSnapshot }
}
