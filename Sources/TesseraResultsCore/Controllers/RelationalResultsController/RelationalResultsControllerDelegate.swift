#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Callbacks for a ``RelationalResultsController`` report, in Core Data's
/// order: will change, each section (parent) change, each item (child)
/// change, did change. Every method has an empty default.
public protocol RelationalResultsControllerDelegate<Parent, Child>: AnyObject {
    /// The parent record type (a section).
    associatedtype Parent: FetchableRecord
    /// The child record type (an item).
    associatedtype Child: FetchableRecord
    /// Before the changes of a report.
    func controllerWillChangeContent(_ controller: RelationalResultsController<Parent, Child>)
    /// A section changed: inserted (new index), deleted (old index), moved
    /// or updated (both).
    func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?)
    /// A child changed: inserted (new path), deleted (old path), moved or
    /// updated (both paths, always).
    func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?)
    /// After the changes of a report, with the report.
    func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeContentWith report: SnapshotReport<Parent, Child>)
    /// Re-fetching after a commit failed (the controller keeps its last
    /// good result; ``RelationalResultsController/refresh()`` tries again).
    func controller(_ controller: RelationalResultsController<Parent, Child>, didFailWith error: ResultsError)
}

extension RelationalResultsControllerDelegate {
    /// Nothing.
    public func controllerWillChangeContent(_ controller: RelationalResultsController<Parent, Child>) {}
    /// Nothing.
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?) {}
    /// Nothing.
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {}
    /// Nothing.
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeContentWith report: SnapshotReport<Parent, Child>) {}
    /// Nothing.
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didFailWith error: ResultsError) {}
}
