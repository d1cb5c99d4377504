import TesseraDiff

/// A user-driven change under way: the change the view shows, the
/// controller's state before it, and that state with it applied.
struct _UserDrivenStep<State, Item: Identifiable> {
    let change: UserDrivenChange<Item>
    /// The controller's state when the change was declared.
    let base: State
    /// ``base`` with the change applied: what the view shows.
    let shown: State
    /// Whether a report has started from ``shown`` (only the first one
    /// does; later ones follow it).
    var hasReported = false
}

extension FetchedResultsController {
    /// Runs a write that stores a change the view already shows, so that
    /// the report of its commit starts from what the view shows: the
    /// controller's result with `change` applied.
    ///
    /// The user dragged a row, and the app rewrites the order column:
    ///
    /// ```swift
    /// try controller.performUserDrivenChange(.move(from: source, to: destination)) {
    ///     try connection.write { db in try rewritePositions(db, from: source, to: destination) }
    /// }
    /// ```
    ///
    /// The report of the write's commit says only what the view does not
    /// show: nothing about the moved row when the database put it where the
    /// user did, and every other change of the commit (other columns, rows a
    /// trigger inserted, another connection's commit seen with it). When the
    /// database disagrees (the row went elsewhere), the report moves it
    /// there; when the write fails or rolls back, the report takes the view
    /// back to the result (the move back). Replaying the report on the
    /// state the view shows always gives ``result``.
    ///
    /// The report carries the change (``ChangeReport/userDrivenChange``)
    /// and the result before it
    /// (``ChangeReport/resultBeforeUserDrivenChange``): its ``ChangeReport/old``
    /// is not the previous report's ``ChangeReport/new`` but that with the
    /// change applied. A ``ResultsDataSource`` takes it without animating
    /// it. The report can have an empty changeset: the view shows the
    /// result already, and the report only says that the result is now the
    /// one shown.
    ///
    /// Rules:
    /// - Declare against ``result`` as it is (what a view fed by the
    ///   reports shows), and write inside `write`, on the controller's
    ///   connection or another: the write must have committed when `write`
    ///   returns. Commits on the controller's connection are reported
    ///   before `write` returns; once it returns, commits that wait for the
    ///   controller and other connections' commits are taken.
    /// - Only the first report after the declaration starts from the
    ///   shown state; a second commit inside `write` is reported as usual.
    /// - Changes do not nest, and index paths must be in the result:
    ///   otherwise ``UserDrivenChangeError`` is thrown before `write` runs,
    ///   and nothing changes.
    /// - A lazily fetched result (``FetchRequest/fetchBatchSize``) takes
    ///   moves only: it keeps no record to show an update with.
    ///
    /// - Parameters:
    ///   - change: What the view already shows.
    ///   - isolation: The caller's isolation (the default says so), where
    ///     the controller lives.
    ///   - write: The write that stores the change.
    /// - Returns: What `write` returns.
    /// - Throws: ``UserDrivenChangeError`` before `write` runs; otherwise
    ///   what `write` throws, after the report that corrects the view.
    /// - Complexity: O(*n*) for *n* rows to apply the change and diff the
    ///   shown state against the new result, plus what the write costs.
    @discardableResult
    public func performUserDrivenChange<T>(
        _ change: UserDrivenChange<Record>,
        isolation: isolated (any Actor)? = #isolation,
        write: () throws -> T
    ) throws -> T {
        guard userDrivenStep == nil else { throw UserDrivenChangeError.nested }
        let base = result
        let shown = try FetchedResult(base.state.applying(change))
        userDrivenStep = _UserDrivenStep(change: change, base: base, shown: shown)
        defer { finishUserDrivenStep(isolation: isolation) }
        return try write()
    }

    /// Whether a user-driven change is under way (inside the `write` of
    /// ``performUserDrivenChange(_:isolation:write:)``).
    public var isPerformingUserDrivenChange: Bool { userDrivenStep != nil }

    /// Ends a user-driven change: takes the commits that wait, then, when
    /// no report started from the shown state, reports the way from it back
    /// to the result.
    private func finishUserDrivenStep(isolation: isolated (any Actor)?) {
        if isFollowing, userDrivenStep?.hasReported == false {
            do throws(ResultsError) {
                let delivery = delivery
                try store.withReader(isolation: isolation) { reader throws(ResultsError) in
                    if let changes = delivery.takeWaiting() { apply(changes, from: reader) }
                }
                if userDrivenStep?.hasReported == false { try checkForExternalChanges(isolation: isolation) }
            } catch {
                fail(error)
            }
        }
        guard let step = userDrivenStep else { return }
        userDrivenStep = nil
        guard !step.hasReported, let back = userDrivenReport(step, to: result, updatedKeys: []) else { return }
        report(back)
    }

    /// The report from the shown state of `step` to `new`, or `nil` when
    /// there is nothing to say: the view shows `new` already and `new` is
    /// the state before the change.
    ///
    /// - Complexity: O(*n*).
    func userDrivenReport(
        _ step: _UserDrivenStep<FetchedResult<Record>, Record>, to new: FetchedResult<Record>, updatedKeys: Set<DatabaseValue>
    ) -> ChangeReport<Record>? {
        let shown = step.shown.state
        let changeset: Changeset
        if shown.isLazy, new.state.isLazy {
            changeset = (try? lazyDiff(from: shown, to: new.state, updated: updatedKeys)) ?? reloadChangeset(from: shown, to: new.state)
        } else if shown.isLazy || new.state.isLazy {
            changeset = reloadChangeset(from: shown, to: new.state)
        } else {
            changeset = exactDiff(from: step.shown.snapshot, to: new.snapshot)
        }
        guard !changeset.isEmpty || !new.isSameState(as: step.base) else { return nil }
        var report = ChangeReport(changeset: changeset, old: step.shown, new: new, updatedKeys: updatedKeys)
        report.userDrivenChange = step.change
        report.resultBeforeUserDrivenChange = step.base
        return report
    }
}

extension _ResultState {
    /// This state with a change the view shows applied.
    ///
    /// - Throws: ``UserDrivenChangeError`` for index paths out of range, an
    ///   update that changes an id, or an update of a lazy state.
    /// - Complexity: O(*n*).
    func applying(_ change: UserDrivenChange<Record>) throws(UserDrivenChangeError) -> _ResultState {
        let (from, to, startsAfter) = try change.place(in: sectionStarts)
        if isLazy {
            guard case .move = change else {
                throw .unsupported(reason: "a lazily fetched result (fetchBatchSize above 0) keeps no record to show an update with; declare moves only, or fetch without a batch size")
            }
            guard let faults, let keys else { throw .unsupported(reason: "the result's keys could not be loaded; refresh the controller first") }
            var list = (0..<keys.count).map { keys[$0] }
            UserDrivenChange<Record>.move(&list, from: from, to: to)
            var column = _KeyColumn()
            for key in list { column.append(key) }
            return _ResultState(sections: sections, sectionStarts: startsAfter, keys: column, faults: faults)
        }
        var list = records.joined()
        switch change {
        case .move:
            UserDrivenChange<Record>.move(&list, from: from, to: to)
        case let .update(at, record):
            guard list[from].id == record.id else { throw .updateChangesIdentity(at) }
            list[from] = record
        }
        return _ResultState(sections: sections, sectionStarts: startsAfter, records: _ChunkedArray(list))
    }
}
