extension DiffableDataSource {
    /// Shows a snapshot at `time`, beginning its plan from where the plan
    /// playing then has every element (see
    /// ``CollectionView/performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)``
    /// and <doc:UpdatesDuringAnimations>).
    ///
    /// On an error nothing changes: the data source keeps its snapshot and
    /// the view is as it was.
    ///
    /// - Parameters:
    ///   - newSnapshot: The snapshot to show.
    ///   - animated: Whether the plan has a duration.
    ///   - time: When the change is made, in seconds on the caller's clock;
    ///     not earlier than the view's last change made at a time.
    /// - Throws: ``AnimationClockError`` for a time that is not finite or
    ///   goes backwards; otherwise as ``apply(_:animated:)``.
    /// - Complexity: what ``apply(_:animated:)`` costs, plus the composition
    ///   with the plan playing (see
    ///   ``CollectionView/performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)``).
    @discardableResult
    public func apply(_ newSnapshot: Snapshot<Section, Item>, animated: Bool = true, at time: Double) throws -> AnimationPlan {
        try apply(newSnapshot, animated: animated, time: time)
    }
}
