#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Callbacks for a change, in Core Data's order: will change, each section
/// and record change, did change. Every method has an empty default.
public protocol FetchedResultsControllerDelegate<Record>: AnyObject {
    associatedtype Record: FetchableRecord
    /// Before the changes of a report.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Record>)
    /// A section changed: inserted (new index), deleted (old index), moved
    /// or updated (both).
    func controller(_ controller: FetchedResultsController<Record>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?)
    /// A record changed: inserted (new path), deleted (old path), moved or
    /// updated (both paths, always).
    func controller(_ controller: FetchedResultsController<Record>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?)
    /// After the changes of a report, with the report.
    func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith report: ChangeReport<Record>)
    /// Re-fetching after a commit failed (the controller keeps its last
    /// good result; ``FetchedResultsController/refresh()`` tries again).
    func controller(_ controller: FetchedResultsController<Record>, didFailWith error: ResultsError)
}

extension FetchedResultsControllerDelegate {
    /// Nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Record>) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith report: ChangeReport<Record>) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didFailWith error: ResultsError) {}
}
