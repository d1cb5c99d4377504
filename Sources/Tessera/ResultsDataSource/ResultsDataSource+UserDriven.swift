import TesseraResults
import TesseraView

extension ResultsDataSource {
    /// Applies a report that follows a change the view already shows (see
    /// TesseraResults' User-driven changes article): the result shown must be the report's
    /// result before that change; the data source takes the change without
    /// a plan, then performs the report's changeset as
    /// ``apply(_:animated:)`` does.
    ///
    /// The view shows a move when this data source's drag made it (an
    /// interactive movement ends with the view showing the item where it
    /// was dropped, see ``reorderingHandler``), and an update always (the
    /// cell shows what the user typed). A move made elsewhere (a button,
    /// another view) is brought in step first with an unanimated batch of
    /// the move alone, so that the cells' views follow their items.
    ///
    /// With a `time`, both batches are made at that time (see
    /// ``apply(_:animated:at:)``).
    ///
    /// - Throws: ``ResultsDataSourceError`` when the result shown is not the
    ///   report's result before the change; ``BatchValidationError`` when
    ///   the view's counts disagree. The data source then shows what the
    ///   view shows: the result it had, or, once the unanimated batch ran,
    ///   the report's result before.
    func applyUserDriven<Report: SectionedResultReport>(_ report: Report, base: Result, animated: Bool, time: Double?) throws -> AnimationPlan where Report.Result == Result {
        let madeByDrag = reordering.viewShowsMove
        reordering.viewShowsMove = false
        if let mismatch = Self.mismatch(shown: result, reportBefore: base, changeset: report.userDrivenChangeset) {
            throw mismatch
        }
        let before = result
        let shown = report.resultBefore
        result = shown
        var inStep = false
        let movedElsewhere = !madeByDrag && !report.userDrivenChangeset.itemMoves.isEmpty
        if movedElsewhere || collectionView.itemCounts != Self.itemCounts(of: shown) {
            do {
                _ = try collectionView.performBatchUpdates(report.userDrivenChangeset, animated: false, time: time)
                inStep = true
            } catch {
                result = before
                throw error
            }
        }
        result = report.resultAfter
        do {
            // Items the changeset deletes and inserts again keep their
            // selection, as in any other report.
            let reinserted = Self.reinsertedIndexPath(before: shown, after: report.resultAfter, changeset: report.changeset)
            var plan = try collectionView.carryingSelection(by: reinserted) {
                try collectionView.performBatchUpdates(report.changeset, animated: animated, time: time)
            }
            identifyItemsLeaving(&plan, before: shown)
            if time != nil { collectionView.updatePlayingPlan(plan) }
            return plan
        } catch {
            result = inStep ? shown : before
            throw error
        }
    }

    /// The number of items in each section of a result.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    static func itemCounts(of result: Result) -> [Int] {
        (0..<result.numberOfSections).map { result.numberOfItems(inSection: $0) }
    }
}
