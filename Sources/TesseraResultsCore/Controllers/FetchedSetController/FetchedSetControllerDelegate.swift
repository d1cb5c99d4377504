/// Callbacks for a ``FetchedSetController`` report: will change, each
/// record change (insert, delete or update, ordered by key within each
/// kind, deletes first), did change. Every method has an empty default.
public protocol FetchedSetControllerDelegate<Record>: AnyObject {
    /// The record type.
    associatedtype Record: FetchableRecord
    /// Before the changes of a report.
    func controllerWillChangeContent(_ controller: FetchedSetController<Record>)
    /// A record came (`.insert`), went (`.delete`, as it was) or changed
    /// content (`.update`, as it is now).
    func controller(_ controller: FetchedSetController<Record>, didChange record: Record, for type: ResultsChangeType)
    /// After the changes of a report, with the report.
    func controller(_ controller: FetchedSetController<Record>, didChangeContentWith report: SetChangeReport<Record>)
    /// Reading the changes after a commit failed (the controller keeps its
    /// last good records; ``FetchedSetController/refresh()`` tries again).
    func controller(_ controller: FetchedSetController<Record>, didFailWith error: ResultsError)
}

extension FetchedSetControllerDelegate {
    /// Nothing.
    public func controllerWillChangeContent(_ controller: FetchedSetController<Record>) {}
    /// Nothing.
    public func controller(_ controller: FetchedSetController<Record>, didChange record: Record, for type: ResultsChangeType) {}
    /// Nothing.
    public func controller(_ controller: FetchedSetController<Record>, didChangeContentWith report: SetChangeReport<Record>) {}
    /// Nothing.
    public func controller(_ controller: FetchedSetController<Record>, didFailWith error: ResultsError) {}
}
