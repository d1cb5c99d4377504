extension MutableResultsController {
    /// Runs edits that store a change the view already shows, so that
    /// their report starts from what the view shows: ``snapshot`` with
    /// `change` applied.
    ///
    /// The user dragged a row, and the app gives the moved elements their
    /// new order:
    ///
    /// ```swift
    /// try controller.performUserDrivenChange(.move(from: source, to: destination)) {
    ///     for element in renumbered { controller.didUpdate(element) }
    /// }
    /// ```
    ///
    /// The edits in `write` are one batch (as between ``beginEditing()``
    /// and ``endEditing()``), reported when `write` returns or throws. The
    /// report starts from the shown state and says only what the view does
    /// not show: nothing about the moved element when the edits put it
    /// where the user did, every other change of the batch, and the way to
    /// where the edits put it when they disagree (back, when they put
    /// nothing). Replaying the report on the state the view shows always
    /// gives ``currentSnapshot``. It carries the change
    /// (``SnapshotReport/userDrivenChange``) and the snapshot before it
    /// (``SnapshotReport/snapshotBeforeUserDrivenChange``), and can have
    /// an empty changeset: the view shows the result already, and the
    /// report only says that the result is now the one shown.
    ///
    /// - Parameters:
    ///   - change: What the view already shows, against ``snapshot``.
    ///   - write: The edits that store the change.
    /// - Returns: What `write` returns.
    /// - Throws: ``UserDrivenChangeError`` before `write` runs (index paths
    ///   out of range, an update that changes an id, a change already under
    ///   way, or edits under way between ``beginEditing()`` and
    ///   ``endEditing()``), with nothing changed; otherwise what `write`
    ///   throws, after the report of the edits it made.
    /// - Complexity: O(*n*) for *n* elements to apply the change and diff
    ///   the shown state against the new one, plus the edits.
    @discardableResult
    public func performUserDrivenChange<T>(_ change: UserDrivenChange<Element>, write: () throws -> T) throws -> T {
        guard userDrivenStep == nil else { throw UserDrivenChangeError.nested }
        guard !isEditing else { throw UserDrivenChangeError.editingInProgress }
        let base = snapshot
        let shown = try base.applying(change)
        userDrivenStep = _UserDrivenStep(change: change, base: base, shown: shown)
        beginEditing()
        defer {
            endEditing()
            userDrivenStep = nil
        }
        return try write()
    }

    /// Whether a user-driven change is under way (inside the `write` of
    /// ``performUserDrivenChange(_:write:)``).
    public var isPerformingUserDrivenChange: Bool { userDrivenStep != nil }
}
