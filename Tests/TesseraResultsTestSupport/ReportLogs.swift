import Foundation
import TesseraResults

// The delegates the controller tests log reports with.

/// Records every report a controller delivers.
public final class ReportLog<Record: FetchableRecord>: FetchedResultsControllerDelegate {
    public init() {}

    public var reports: [ChangeReport<Record>] = []
    public var events: [String] = []
    public var errors: [ResultsError] = []
    public func controller(_ controller: FetchedResultsController<Record>, didFailWith error: ResultsError) { errors.append(error) }
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Record>) { events.append("will") }
    public func controller(_ controller: FetchedResultsController<Record>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        events.append("\(type) \(oldIndexPath.map { "\(Array($0))" } ?? "-") \(newIndexPath.map { "\(Array($0))" } ?? "-")")
    }
    public func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith report: ChangeReport<Record>) {
        events.append("did")
        reports.append(report)
    }
}

/// Records every report and callback of a relational controller.
public final class RelationalLog<Parent: FetchableRecord, Child: FetchableRecord>: RelationalResultsControllerDelegate {
    public init() {}

    public var reports: [SnapshotReport<Parent, Child>] = []
    public var events: [String] = []
    public var errors: [ResultsError] = []

    public func controllerWillChangeContent(_ controller: RelationalResultsController<Parent, Child>) { events.append("will") }
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?) {
        events.append("section \(type) \(oldIndex.map(String.init) ?? "-") \(newIndex.map(String.init) ?? "-")")
    }
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        events.append("\(type) \(oldIndexPath.map { "\(Array($0))" } ?? "-") \(newIndexPath.map { "\(Array($0))" } ?? "-")")
    }
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didChangeContentWith report: SnapshotReport<Parent, Child>) {
        events.append("did")
        reports.append(report)
    }
    public func controller(_ controller: RelationalResultsController<Parent, Child>, didFailWith error: ResultsError) { errors.append(error) }
}
