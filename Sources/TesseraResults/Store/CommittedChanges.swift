import TesseraSQLite

/// What one committed transaction did to the rows a controller watches, as
/// a change source hands it over: the rows it touched, each with where it
/// was before, or that the controller must fetch again.
///
/// Rolled-back work never makes one. Several transactions that a
/// controller takes together (it was busy when they committed) merge into
/// one value that goes from the state before the first to the state after
/// the last (see ``merge(_:)``).
package struct CommittedChanges: Sendable {
    /// The rows touched, by key: the row's tuple (its sort values, then its
    /// key, as the controller's ``PatchPlan`` lists them) when the first
    /// transaction began, or `nil` when no row of the watched table had
    /// that key then. A change source asked for keys only (a set
    /// controller's) gives `nil` for every key.
    package var touched: [DatabaseValue: [DatabaseValue]?]
    /// The change cannot be followed row by row (another table changed,
    /// the schema changed, too many rows were touched, a row could not be
    /// located, or the result was read in a transaction that did not
    /// survive whole): the controller fetches again.
    package var mustRefetch: Bool

    /// A change that touched the given rows.
    package init(touched: [DatabaseValue: [DatabaseValue]?] = [:], mustRefetch: Bool = false) {
        self.touched = touched
        self.mustRefetch = mustRefetch
    }

    /// A change the controller must fetch again to follow.
    package static var refetch: CommittedChanges { CommittedChanges(mustRefetch: true) }

    /// Whether nothing was touched and nothing must be fetched.
    package var isEmpty: Bool { touched.isEmpty && !mustRefetch }

    /// Adds a later transaction's changes: a row touched by both keeps
    /// where it was before the earlier one, which is where the controller
    /// still has it.
    ///
    /// - Complexity: O(*k*) for the *k* rows the later one touched.
    package mutating func merge(_ later: CommittedChanges) {
        mustRefetch = mustRefetch || later.mustRefetch
        guard !mustRefetch else {
            touched = [:]
            return
        }
        for (key, tuple) in later.touched where touched[key] == nil {
            touched[key] = .some(tuple)
        }
    }
}
