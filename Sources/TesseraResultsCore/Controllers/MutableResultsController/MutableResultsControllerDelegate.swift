#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Callbacks for a ``MutableResultsController`` report, in Core Data's
/// order: will change, each section change, each element change, did
/// change. Every method has an empty default.
public protocol MutableResultsControllerDelegate<Section, Element>: AnyObject {
    /// The section key type.
    associatedtype Section: Hashable & Sendable
    /// The element type.
    associatedtype Element: Identifiable & Equatable & Sendable
    /// Before the changes of a report.
    func controllerWillChangeContent(_ controller: MutableResultsController<Section, Element>)
    /// A section changed: inserted (new index), deleted (old index) or
    /// moved (both).
    func controller(_ controller: MutableResultsController<Section, Element>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?)
    /// An element changed: inserted (new path), deleted (old path), moved
    /// or updated (both paths, always).
    func controller(_ controller: MutableResultsController<Section, Element>, didChangeElementAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?)
    /// After the changes of a report, with the report.
    func controller(_ controller: MutableResultsController<Section, Element>, didChangeContentWith report: SnapshotReport<KeyedSection<Section>, Element>)
}

extension MutableResultsControllerDelegate {
    /// Nothing.
    public func controllerWillChangeContent(_ controller: MutableResultsController<Section, Element>) {}
    /// Nothing.
    public func controller(_ controller: MutableResultsController<Section, Element>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?) {}
    /// Nothing.
    public func controller(_ controller: MutableResultsController<Section, Element>, didChangeElementAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {}
    /// Nothing.
    public func controller(_ controller: MutableResultsController<Section, Element>, didChangeContentWith report: SnapshotReport<KeyedSection<Section>, Element>) {}
}
