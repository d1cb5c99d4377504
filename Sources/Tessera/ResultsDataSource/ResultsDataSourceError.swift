#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A report that does not start from the result a ``ResultsDataSource``
/// shows — one was skipped, or applied twice — naming the first thing that
/// differs. The data source and its view are left as they were.
///
/// Recover with ``ResultsDataSource/reload(_:)`` and the report's result
/// after (no animation), or apply the reports in the order they came.
public enum ResultsDataSourceError: Error, Hashable, Sendable {
    /// The report starts with `reportBefore` sections; the view shows
    /// `shown`.
    case sectionCountMismatch(shown: Int, reportBefore: Int)
    /// The section at this index is not the one the report starts with
    /// (another id, or other content).
    case sectionMismatch(section: Int)
    /// The report starts with `reportBefore` items in a section; the view
    /// shows `shown`.
    case itemCountMismatch(section: Int, shown: Int, reportBefore: Int)
    /// An item the report deletes, moves or updates is not the one the
    /// view shows at that index path (another id, or other content).
    case itemMismatch(indexPath: IndexPath)
}

extension ResultsDataSourceError: CustomStringConvertible {
    /// What did not match, and where.
    public var description: String {
        let prefix = "the report does not start from the result the view shows"
        switch self {
        case let .sectionCountMismatch(shown, reportBefore):
            return "\(prefix): it starts with \(reportBefore) sections, the view shows \(shown)"
        case let .sectionMismatch(section):
            return "\(prefix): section \(section) differs"
        case let .itemCountMismatch(section, shown, reportBefore):
            return "\(prefix): it starts with \(reportBefore) items in section \(section), the view shows \(shown)"
        case let .itemMismatch(indexPath):
            return "\(prefix): the item at [\(indexPath.map(String.init).joined(separator: ", "))], which it changes, differs"
        }
    }
}
