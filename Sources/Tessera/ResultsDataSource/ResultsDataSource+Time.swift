public import TesseraView

extension ResultsDataSource {
    /// Performs a report's changeset at `time` and returns its plan, begun
    /// from where the plan playing then has every element (see
    /// ``CollectionView/performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)``).
    ///
    /// The report is checked as ``apply(_:animated:)`` checks it; on any
    /// error the data source and the view are as they were.
    ///
    /// - Parameters:
    ///   - report: The next report of the controller.
    ///   - animated: Whether the plan has a duration.
    ///   - time: When the change is made, in seconds on the caller's clock;
    ///     not earlier than the view's last change made at a time.
    /// - Throws: ``AnimationClockError`` for a time that is not finite or
    ///   goes backwards; otherwise as ``apply(_:animated:)``.
    /// - Complexity: what ``apply(_:animated:)`` costs, plus the composition
    ///   with the plan playing.
    @discardableResult
    public func apply<Report: SectionedResultReport>(_ report: Report, animated: Bool = true, at time: Double) throws -> AnimationPlan where Report.Result == Result {
        try apply(report, animated: animated, time: time)
    }
}
