#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff
public import TesseraResults

/// A sectioned result read by index: what a ``ResultsDataSource`` shows.
///
/// ``FetchedResult`` (a ``FetchedResultsController``'s result) and
/// ``Snapshot`` (a ``RelationalResultsController``'s or a
/// ``MutableResultsController``'s) conform. Every read must be cheap — O(1)
/// or O(log *n*) — since a data source answers its view from it.
public protocol SectionedResult {
    /// A section: its id says "same section", equality "same content".
    associatedtype Section: Identifiable & Equatable
    /// An item: its id says "same item", equality "same content".
    associatedtype Item: Identifiable & Equatable

    /// The number of sections.
    var numberOfSections: Int { get }
    /// The number of items in a section.
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    func numberOfItems(inSection section: Int) -> Int
    /// The section at an index.
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    subscript(section section: Int) -> Section { get }
    /// The item at an index path, or `nil` when it cannot be read (a
    /// lazily fetched record whose row is gone or whose read failed).
    ///
    /// - Precondition: the index path names an item of the result.
    func item(at indexPath: IndexPath) -> Item?
    /// The index path of the item with an id, or `nil`. A linear search
    /// over ``item(at:)`` by default; ``FetchedResult`` and ``Snapshot``
    /// answer with their own lookups.
    func indexPath(ofItemWithID id: Item.ID) -> IndexPath?
}

/// One change to a ``SectionedResult``: its changeset in UIKit's index
/// spaces and the results before and after. A ``ResultsDataSource``
/// performs the changeset as it is, without diffing again.
///
/// ``ChangeReport`` and ``SnapshotReport`` conform.
public protocol SectionedResultReport {
    /// The result the report goes between.
    associatedtype Result: SectionedResult
    /// The changes, from ``resultBefore`` to ``resultAfter``.
    var changeset: Changeset { get }
    /// The result before the change.
    var resultBefore: Result { get }
    /// The result after the change.
    var resultAfter: Result { get }
    /// The controller's result before a change the view already showed
    /// (a user-driven change, see TesseraResults' User-driven changes article), or `nil`: then
    /// ``resultBefore`` is this result with ``userDrivenChangeset``
    /// applied. `nil` unless a conforming type says otherwise.
    var resultBeforeUserDrivenChange: Result? { get }
    /// The user-driven change as a changeset of
    /// ``resultBeforeUserDrivenChange`` (a move or an update of one item);
    /// empty when there is none.
    var userDrivenChangeset: Changeset { get }
}

extension SectionedResultReport {
    /// `nil`: the report follows no user-driven change.
    public var resultBeforeUserDrivenChange: Result? { nil }
    /// Empty: the report follows no user-driven change.
    public var userDrivenChangeset: Changeset { Changeset() }
}

/// A result that can tell in O(1) that another is its very state, shared:
/// a report that starts from the result shown then needs no comparing (see
/// ``ResultsDataSource/apply(_:animated:)``).
package protocol _StateSharingResult {
    /// Whether `other` is the same kind of result and this very state.
    ///
    /// - Complexity: O(1).
    func _isSameState(as other: Any) -> Bool
}

extension FetchedResult: _StateSharingResult {
    package func _isSameState(as other: Any) -> Bool {
        guard let other = other as? FetchedResult else { return false }
        return isSameState(as: other)
    }
}

extension FetchedResult: SectionedResult {
    /// The number of records in a section (``numberOfRecords(inSection:)``).
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public func numberOfItems(inSection section: Int) -> Int {
        numberOfRecords(inSection: section)
    }

    /// The section at an index.
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public subscript(section section: Int) -> ResultSection {
        sections[section]
    }

    /// The record at an index path, or `nil` when a lazily fetched result
    /// cannot read it (``record(at:)`` says why).
    ///
    /// - Precondition: the index path is in the result.
    /// - Complexity: O(log *n*), plus a batch read when lazy and not kept.
    public func item(at indexPath: IndexPath) -> Record? {
        try? record(at: indexPath)
    }
}

extension Snapshot: SectionedResult {
    /// The item at an index path (never `nil`: a snapshot holds its items).
    ///
    /// - Precondition: the index path names an item of the snapshot.
    public func item(at indexPath: IndexPath) -> Item? {
        self[indexPath]
    }
}

extension ChangeReport: SectionedResultReport {
    /// The result before (``old``).
    public var resultBefore: FetchedResult<Record> { old }
    /// The result after (``new``).
    public var resultAfter: FetchedResult<Record> { new }
    /// The user-driven change as a changeset of
    /// ``resultBeforeUserDrivenChange``; empty when there is none.
    public var userDrivenChangeset: Changeset { userDrivenChange?.changeset ?? Changeset() }
}

extension SnapshotReport: SectionedResultReport {
    /// The snapshot before (``oldSnapshot``).
    public var resultBefore: Snapshot<Section, Item> { oldSnapshot }
    /// The snapshot after (``newSnapshot``).
    public var resultAfter: Snapshot<Section, Item> { newSnapshot }
    /// The snapshot before the user-driven change
    /// (``snapshotBeforeUserDrivenChange``), or `nil`.
    public var resultBeforeUserDrivenChange: Snapshot<Section, Item>? { snapshotBeforeUserDrivenChange }
    /// The user-driven change as a changeset of
    /// ``snapshotBeforeUserDrivenChange``; empty when there is none.
    public var userDrivenChangeset: Changeset { userDrivenChange?.changeset ?? Changeset() }
}
