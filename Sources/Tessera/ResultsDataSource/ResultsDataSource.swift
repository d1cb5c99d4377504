#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import TesseraDiff
import TesseraLayout
public import TesseraView

/// A data source that shows a results controller's result and performs each
/// of its reports as one batch, as the report's changeset says, without
/// diffing again.
///
/// ```swift
/// let source = ResultsDataSource(collectionView: view, result: controller.result)
/// // for each report, in order:
/// let plan = try source.apply(report)
/// ```
///
/// ``DiffableDataSource`` given `report.newSnapshot` would make the same
/// plan, but it copies the result into a snapshot and diffs it against
/// the last one: O(*n*) for every report. A report already holds the
/// changeset and the results before and after, which answer counts and
/// items in O(1) and O(log *n*), so ``apply(_:animated:)`` costs what the
/// change and the screen cost.
///
/// Reports must be applied in the order they come, each exactly once. A
/// report that does not start from the result shown (one skipped or
/// applied twice) throws ``ResultsDataSourceError`` and changes nothing;
/// ``reload(_:)`` then shows the report's result after, without animation.
///
/// The collection view holds its data source weakly and the data source
/// holds the view: keep the data source. Not thread-safe: use it where the
/// controller reports.
public final class ResultsDataSource<Result: SectionedResult> {
    /// An item of the result.
    public typealias Item = Result.Item

    /// The result the collection view shows.
    public internal(set) var result: Result
    /// The collection view it feeds. Held strongly (the view holds its data
    /// source weakly), so keeping the data source keeps both.
    public let collectionView: CollectionView
    /// The id of an item in plans (``AnimationPlan/Element/itemID``). Its
    /// `id` as text unless set.
    public var itemIdentifier: (Item) -> String
    /// The reuse identifier of an item's view. `"Cell"` unless set.
    public var reuseIdentifier: (IndexPath, Item) -> String
    /// The reuse identifier of a supplementary view, from its kind and
    /// index path. The kind unless set.
    public var supplementaryReuseIdentifier: (String, IndexPath) -> String
    /// Writes the order the user made by dragging an item; `nil` (the
    /// default) when the items cannot be moved. See
    /// ``ReorderingHandler``.
    public var reorderingHandler: ReorderingHandler?
    /// The state of a drag the data source is ending.
    var reordering = _ReorderingState()

    /// Creates a data source, makes it the collection view's and shows a
    /// result, without animation.
    ///
    /// - Parameters:
    ///   - collectionView: The view to feed.
    ///   - result: What to show first: a controller's `result` (or
    ///     `snapshot`), the result before the next report it will apply.
    ///   - itemIdentifier: The id of an item in plans; its `id` as text by
    ///     default.
    ///   - reuseIdentifier: The reuse identifier of an item's view;
    ///     `"Cell"` by default.
    ///   - supplementaryReuseIdentifier: The reuse identifier of a
    ///     supplementary view, from its kind and index path; the kind by
    ///     default.
    /// - Complexity: what the layout's `prepare()` costs, plus O(*s*) for
    ///   *s* sections.
    public init(
        collectionView: CollectionView,
        result: Result,
        itemIdentifier: @escaping (Item) -> String = { "\($0.id)" },
        reuseIdentifier: @escaping (IndexPath, Item) -> String = { _, _ in "Cell" },
        supplementaryReuseIdentifier: @escaping (String, IndexPath) -> String = { kind, _ in kind }
    ) {
        self.result = result
        self.collectionView = collectionView
        self.itemIdentifier = itemIdentifier
        self.reuseIdentifier = reuseIdentifier
        self.supplementaryReuseIdentifier = supplementaryReuseIdentifier
        collectionView.dataSource = self
        collectionView.reloadData()
    }

    /// Performs a report's changeset as one batch and returns its animation
    /// plan.
    ///
    /// The report must start from the result shown. When its result before
    /// is the very result shown (a ``FetchedResultsController``'s report
    /// after the one applied last), that is known at once and nothing is
    /// compared or read. Otherwise its result before is compared with
    /// ``result`` — the number of sections, each section and its number of
    /// items, and every item the changeset deletes, moves or updates (by
    /// equality, so ids and content; a lazily fetched result reads a record
    /// as it is now, so there only its id counts). On a mismatch it throws
    /// and changes nothing. Then the data source answers
    /// from the report's result after and the view performs the changeset
    /// (``CollectionView/performBatchUpdates(_:animated:)``): the plan
    /// equals what ``DiffableDataSource/apply(_:animated:)`` gives for the
    /// report's snapshot after, element for element.
    ///
    /// A report skipped whose changes all lie where the next report does
    /// not look (same counts, same sections, other items) goes unseen; the
    /// view still ends showing the next report's result, with its counts
    /// checked, and only the skipped report's animation is missing.
    ///
    /// ```swift
    /// func controller(_ controller: FetchedResultsController<Photo>,
    ///                 didChangeContentWith report: ChangeReport<Photo>) {
    ///     do {
    ///         play(try source.apply(report))
    ///     } catch {
    ///         source.reload(report.new)     // out of step: show the result as it is
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - report: A ``ChangeReport`` of a ``FetchedResultsController``, or
    ///     a ``SnapshotReport`` of a ``RelationalResultsController`` or a
    ///     ``MutableResultsController``.
    ///   - animated: Whether the plan has a duration.
    /// - Returns: The plan; the ids of items deleted from view are read
    ///   from the result before (a lazily fetched record that can no
    ///   longer be read leaves its cell without an id).
    /// - Throws: ``ResultsDataSourceError`` when the report does not start
    ///   from the result shown; ``BatchValidationError`` when the view's
    ///   counts disagree with ``result`` (another data source changed it).
    ///   Either way the data source and the view are as they were.
    /// A report that follows a user-driven change (its
    /// ``SectionedResultReport/resultBeforeUserDrivenChange`` is set: see
    /// TesseraResults' User-driven changes article) must start from the result shown with that
    /// change applied: the data source checks the result shown against the
    /// report's result before the change, takes the change without
    /// animating it, then performs the changeset.
    ///
    /// A report applied while the view ends a drag (from inside the
    /// ``reorderingHandler``) waits, and the plan returned is empty: the
    /// data source applies it once the item settled (see
    /// ``endInteractiveMovement()`` and ``applyDeferredReports()``).
    ///
    /// - Complexity: O(1) to check a report that starts from the very result
    ///   shown, O(*s* + *k* log *n*) for *s* sections and *k* changed items
    ///   of *n* to check any other, plus what
    ///   ``CollectionView/performBatchUpdates(_:animated:)`` costs (the
    ///   layout's `prepare()` and the visible elements): never a pass over
    ///   every item.
    @discardableResult
    public func apply<Report: SectionedResultReport>(_ report: Report, animated: Bool = true) throws -> AnimationPlan where Report.Result == Result {
        try apply(report, animated: animated, time: nil)
    }

    /// Applies a report at a time (see ``apply(_:animated:at:)``), or as
    /// ``apply(_:animated:)`` does when `time` is `nil`.
    func apply<Report: SectionedResultReport>(_ report: Report, animated: Bool, time: Double?) throws -> AnimationPlan where Report.Result == Result {
        // The delegate hears of deleted selected items once the plan is complete.
        try collectionView.reportingSelectionAfterwards { try applyNow(report, animated: animated, time: time) }
    }

    private func applyNow<Report: SectionedResultReport>(_ report: Report, animated: Bool, time: Double?) throws -> AnimationPlan where Report.Result == Result {
        if let time { try collectionView.checkTime(time) }
        if let deferred = try deferOrCatchUp(report, animated: animated, time: time) { return deferred }
        if let base = report.resultBeforeUserDrivenChange {
            return try applyUserDriven(report, base: base, animated: animated, time: time)
        }
        if let mismatch = Self.mismatch(shown: result, reportBefore: report.resultBefore, changeset: report.changeset) {
            throw mismatch
        }
        let before = result
        result = report.resultAfter
        do {
            let reinserted = Self.reinsertedIndexPath(before: before, after: report.resultAfter, changeset: report.changeset)
            var plan = try collectionView.carryingSelection(by: reinserted) {
                try collectionView.performBatchUpdates(report.changeset, animated: animated, time: time)
            }
            identifyItemsLeaving(&plan, before: before)
            if time != nil { collectionView.updatePlayingPlan(plan) }
            return plan
        } catch {
            result = before
            throw error
        }
    }

    /// Shows a result without animation, whatever was shown before: the
    /// way back in step after ``ResultsDataSourceError``, or a jump to a
    /// controller's current result.
    ///
    /// - Complexity: what the layout's `prepare()` costs, plus O(*s*) for
    ///   *s* sections.
    public func reload(_ result: Result) {
        self.result = result
        reordering.pendingMove = nil
        collectionView.reloadData()
    }

    /// The first thing in which the result shown differs from the one a
    /// report starts with, or `nil`: none when they are one state.
    ///
    /// - Complexity: O(1) for one state, otherwise O(*s* + *k* log *n*).
    static func mismatch(shown: Result, reportBefore: Result, changeset: Changeset) -> ResultsDataSourceError? {
        if let shown = shown as? any _StateSharingResult, shown._isSameState(as: reportBefore) { return nil }
        guard shown.numberOfSections == reportBefore.numberOfSections else {
            return .sectionCountMismatch(shown: shown.numberOfSections, reportBefore: reportBefore.numberOfSections)
        }
        for section in 0..<shown.numberOfSections {
            let count = shown.numberOfItems(inSection: section)
            let countBefore = reportBefore.numberOfItems(inSection: section)
            guard count == countBefore else {
                return .itemCountMismatch(section: section, shown: count, reportBefore: countBefore)
            }
            guard shown[section: section] == reportBefore[section: section] else {
                return .sectionMismatch(section: section)
            }
        }
        // Paths out of range are left to the view's validation, which
        // names them; records that cannot be read are not compared.
        func differs(at path: IndexPath) -> Bool {
            guard Self.holds(shown, path), let item = shown.item(at: path), let itemBefore = reportBefore.item(at: path) else { return false }
            return item != itemBefore
        }
        for path in changeset.itemDeletes where differs(at: path) { return .itemMismatch(indexPath: path) }
        for move in changeset.itemMoves where differs(at: move.from) { return .itemMismatch(indexPath: move.from) }
        for update in changeset.itemUpdates where differs(at: update.from) { return .itemMismatch(indexPath: update.from) }
        return nil
    }

    /// Whether a result has an item at an index path.
    static func holds(_ result: Result, _ path: IndexPath) -> Bool {
        path.count == 2 && path[0] >= 0 && path[0] < result.numberOfSections
            && path[1] >= 0 && path[1] < result.numberOfItems(inSection: path[0])
    }

    /// Gives the cells of a plan that leave the view their ids, from the
    /// result before (the view asks the data source only about the state
    /// after).
    ///
    /// - Complexity: O(*v* log *n*) for *v* elements in the plan.
    func identifyItemsLeaving(_ plan: inout AnimationPlan, before: Result) {
        for index in plan.elements.indices {
            let element = plan.elements[index]
            guard element.category == .cell, element.itemID == nil, element.indexPathAfter == nil,
                  let path = element.indexPathBefore, Self.holds(before, path), let item = before.item(at: path) else { continue }
            plan.elements[index].itemID = itemIdentifier(item)
        }
    }
}

extension ResultsDataSource: CollectionViewDataSource {
    /// The number of sections of ``result``.
    public func numberOfSections(in collectionView: CollectionView) -> Int {
        result.numberOfSections
    }

    /// The number of items in a section of ``result``.
    public func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        result.numberOfItems(inSection: section) + reordering.countChange(inSection: section)
    }

    /// ``reuseIdentifier`` for the item; `"Cell"` for an index path
    /// ``result`` does not hold or an item it cannot read.
    ///
    /// - Complexity: O(log *n*) for a ``FetchedResult``, O(1) for a
    ///   ``Snapshot``, plus the closure.
    public func collectionView(_ collectionView: CollectionView, reuseIdentifierForItemAt presentedPath: IndexPath) -> String {
        let indexPath = reordering.resultIndexPath(forShown: presentedPath)
        guard Self.holds(result, indexPath), let item = result.item(at: indexPath) else { return "Cell" }
        return reuseIdentifier(presentedPath, item)
    }

    /// ``supplementaryReuseIdentifier`` for the view.
    public func collectionView(_ collectionView: CollectionView, reuseIdentifierForSupplementaryElementOfKind kind: String, at indexPath: IndexPath) -> String {
        supplementaryReuseIdentifier(kind, indexPath)
    }

    /// ``itemIdentifier`` for the item; `nil` for an index path ``result``
    /// does not hold or an item it cannot read.
    ///
    /// - Complexity: O(log *n*) for a ``FetchedResult``, O(1) for a
    ///   ``Snapshot``, plus the closure.
    public func collectionView(_ collectionView: CollectionView, itemIdentifierAt presentedPath: IndexPath) -> String? {
        let indexPath = reordering.resultIndexPath(forShown: presentedPath)
        guard Self.holds(result, indexPath), let item = result.item(at: indexPath) else { return nil }
        return itemIdentifier(item)
    }
}

@available(*, unavailable)
extension ResultsDataSource: Sendable {}
