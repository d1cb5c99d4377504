#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

/// Sorted, sectioned content that you keep in memory and edit, reported
/// like a ``FetchedResultsController``'s results: a changeset in UIKit's
/// index spaces per edit, or per batch of edits.
///
/// ```swift
/// let controller = MutableResultsController<String, Photo>(
///     sectionKey: \.album,
///     sortKeys: [.descending(\.date), .ascending(\.title)]
/// )
/// try controller.insert(beach)
/// controller.beginEditing()
/// try controller.insert(sunset)
/// beach.title = "Beach at noon"
/// controller.didUpdate(beach)       // re-sorted, reported as an update
/// controller.endEditing()           // one report for both edits
/// ```
///
/// Elements are grouped into sections by a section key and sorted within a
/// section by the item order; sections are sorted by their own order,
/// independent of the item order. Elements the item order does not tell
/// apart keep the order they were inserted in, so the order is total and
/// the same for the same content and history.
///
/// Every edit outside ``beginEditing()`` / ``endEditing()`` is reported at
/// once; edits between them (the pair nests) are reported together at the
/// outermost ``endEditing()``. A report's changeset is exactly
/// `diff(from: report.oldSnapshot, to: report.newSnapshot)`, and an edit
/// that changes nothing visible reports nothing. Elements are best as
/// values (structs): an edited element passed to ``didUpdate(_:)`` is
/// compared with `==` to its previous value, and a change is an item
/// update. Elements that are classes, changed in place, cannot be compared
/// with their previous state: ``didUpdate(_:)`` reports them as updated.
///
/// Sections: with ``removesEmptySections`` (the default), a section goes
/// away with its last element; otherwise a section stays, empty, until
/// ``deleteSection(_:)``. ``insertSection(_:)`` adds a section that stays
/// while empty in both modes.
///
/// Sections and elements are `Sendable`, so that reports can go out
/// through a ``ReportSequence``. Not thread-safe: use the controller from one
/// thread or actor.
public final class MutableResultsController<Section: Hashable & Sendable, Element: Identifiable & Equatable & Sendable> {
    /// The snapshot type of the results.
    public typealias ResultSnapshot = Snapshot<KeyedSection<Section>, Element>
    /// The report type.
    public typealias Report = SnapshotReport<KeyedSection<Section>, Element>

    /// An element and the sequence number of its insertion, which breaks
    /// ties of the item order.
    private struct Entry {
        var element: Element
        var order: UInt64
    }

    /// Where an element is: its section key, and its insertion number.
    private struct Placement {
        var section: Section
        var order: UInt64
    }

    private let sectionKey: (Element) -> Section
    private let sectionOrder: (Section, Section) -> Bool
    private let itemOrder: (Element, Element) -> Bool

    /// Whether a section that loses its last element goes away (unless it
    /// was added with ``insertSection(_:)``).
    public let removesEmptySections: Bool

    /// The results as last reported: what a view showing them shows.
    /// Between ``beginEditing()`` and ``endEditing()`` it does not yet
    /// include the pending edits.
    public private(set) var snapshot = ResultSnapshot()

    /// Called for every report.
    ///
    /// Held weakly, as UIKit's and Core Data's delegates are: the
    /// controller does not keep its delegate alive. Keep a reference to it
    /// for as long as it should hear reports; a delegate nothing else
    /// holds is released at once, and nothing is reported to it:
    ///
    /// ```swift
    /// controller.delegate = CardList()   // released at once (the compiler warns): hears nothing
    ///
    /// let list = CardList()              // kept while `list` is
    /// controller.delegate = list
    /// ```
    ///
    /// ``reports`` delivers the same reports without a delegate.
    public weak var delegate: (any MutableResultsControllerDelegate<Section, Element>)?

    // The current content: section keys in section order, each section's
    // entries in item order.
    private var sectionKeys: [Section] = []
    private var sectionEntries: [[Entry]] = []
    private var placements: [Element.ID: Placement] = [:]
    /// Sections that stay while empty.
    private var retainedSections: Set<Section> = []
    private var nextOrder: UInt64 = 0
    private var editingDepth = 0
    /// Class elements passed to ``didUpdate(_:)`` since the last report.
    private var updatedInPlace: Set<Element.ID> = []
    private let streams = _ReportHub<Report>(merging: Report.merging)
    /// The user-driven change under way (see
    /// ``performUserDrivenChange(_:write:)``), or `nil`.
    var userDrivenStep: _UserDrivenStep<ResultSnapshot, Element>?

    /// Creates an empty controller that sorts with a comparator.
    ///
    /// - Parameters:
    ///   - sectionKey: The section of an element (a key path works:
    ///     `\.album`).
    ///   - sectionOrder: Whether one section sorts before another; a strict
    ///     weak ordering that tells distinct section keys apart.
    ///   - itemOrder: Whether one element sorts before another within a
    ///     section; a strict weak ordering.
    ///   - removesEmptySections: Whether a section goes away with its last
    ///     element.
    public init(
        sectionKey: @escaping (Element) -> Section,
        sectionOrder: @escaping (Section, Section) -> Bool,
        itemOrder: @escaping (Element, Element) -> Bool,
        removesEmptySections: Bool = true
    ) {
        self.sectionKey = sectionKey
        self.sectionOrder = sectionOrder
        self.itemOrder = itemOrder
        self.removesEmptySections = removesEmptySections
    }

    /// Creates an empty controller that sorts by a list of keys.
    ///
    /// - Parameters:
    ///   - sectionKey: The section of an element.
    ///   - sectionOrder: Whether one section sorts before another.
    ///   - sortKeys: The keys elements are sorted by within a section, the
    ///     first deciding first.
    ///   - removesEmptySections: Whether a section goes away with its last
    ///     element.
    public convenience init(
        sectionKey: @escaping (Element) -> Section,
        sectionOrder: @escaping (Section, Section) -> Bool,
        sortKeys: [ElementSortKey<Element>],
        removesEmptySections: Bool = true
    ) {
        self.init(sectionKey: sectionKey, sectionOrder: sectionOrder, itemOrder: ElementSortKey.order(sortKeys), removesEmptySections: removesEmptySections)
    }

    // MARK: Reports

    /// The reports, for Swift concurrency: each access makes a new
    /// sequence that receives every later report. A consumer more than
    /// `bufferLimit` reports behind gets the newest ones merged into one
    /// exact report (see ``ReportSequence``).
    public func reports(bufferLimit: Int) -> ReportSequence<Report> { streams.makeSequence(limit: bufferLimit) }

    /// ``reports(bufferLimit:)`` with a limit of 64 waiting reports.
    public var reports: ReportSequence<Report> { reports(bufferLimit: 64) }

    /// Starts a batch of edits: they are reported together at the
    /// outermost ``endEditing()``. Batches nest.
    public func beginEditing() {
        editingDepth += 1
    }

    /// Ends a batch of edits; the outermost one reports them, if they
    /// changed anything. Without a matching ``beginEditing()`` it does
    /// nothing.
    ///
    /// - Complexity: O(*n* + *s*) for *n* elements in *s* sections at the
    ///   outermost end (a new snapshot and its diff), plus O(*m* log *m*) for
    ///   *m* moved elements; O(1) otherwise.
    public func endEditing() {
        guard editingDepth > 0 else { return }
        editingDepth -= 1
        if editingDepth == 0 { reportChanges() }
    }

    /// Whether edits are being batched.
    public var isEditing: Bool { editingDepth > 0 }

    /// Runs `body` as one batch of edits: one report at the end (unless an
    /// outer batch is open).
    ///
    /// - Throws: what `body` throws; the edits it made before are kept and
    ///   reported.
    public func performEditing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        beginEditing()
        defer { endEditing() }
        return try body()
    }

    // MARK: Editing

    /// Adds an element at its sorted place.
    ///
    /// - Throws: ``ResultsError/duplicateKey(_:)`` when an element with the
    ///   same id is already there (use ``didUpdate(_:)`` to change it).
    /// - Complexity: O(log *s* + *k*) for *k* elements in its section, plus
    ///   the report when not editing.
    public func insert(_ element: Element) throws(ResultsError) {
        guard placements[element.id] == nil else { throw .duplicateKey("\(element.id)") }
        performEditing {
            place(element, order: nextOrder)
            nextOrder += 1
        }
    }

    /// Adds elements at their sorted places, as one batch.
    ///
    /// - Throws: ``ResultsError/duplicateKey(_:)`` for the first element
    ///   whose id is already there (or repeats in `elements`); nothing is
    ///   added then.
    /// - Complexity: O(*m* (log *s* + *k*)) for *m* elements, plus the report.
    public func insert<S: Sequence>(contentsOf elements: S) throws(ResultsError) where S.Element == Element {
        let elements = Array(elements)
        var ids = Set<Element.ID>(minimumCapacity: elements.count)
        for element in elements where placements[element.id] != nil || !ids.insert(element.id).inserted {
            throw .duplicateKey("\(element.id)")
        }
        performEditing {
            for element in elements {
                place(element, order: nextOrder)
                nextOrder += 1
            }
        }
    }

    /// Removes the element with an id.
    ///
    /// - Returns: The element removed, or `nil` when there was none.
    /// - Complexity: O(log *s* + *k*) for *k* elements in its section, plus
    ///   the report when not editing.
    @discardableResult
    public func delete(id: Element.ID) -> Element? {
        guard placements[id] != nil else { return nil }
        return performEditing { unplace(id).element }
    }

    /// Removes an element (the one with its id).
    ///
    /// - Returns: The element removed, or `nil` when there was none.
    /// - Complexity: O(log *s* + *k*) for *k* elements in its section, plus
    ///   the report when not editing.
    @discardableResult
    public func delete(_ element: Element) -> Element? {
        delete(id: element.id)
    }

    /// Takes an element's new content: moves it to its sorted place (and
    /// section) and reports it as updated when its content changed.
    ///
    /// - Returns: Whether the controller holds an element with this id
    ///   (`false` changes nothing).
    /// - Complexity: O(log *s* + *k*) for *k* elements in its old and new
    ///   sections, plus the report when not editing.
    @discardableResult
    public func didUpdate(_ element: Element) -> Bool {
        guard placements[element.id] != nil else { return false }
        performEditing {
            let old = unplace(element.id)
            place(element, order: old.order)
            if Element.self is AnyObject.Type { updatedInPlace.insert(element.id) }
        }
        return true
    }

    /// Adds a section that stays while it is empty, until
    /// ``deleteSection(_:)``.
    ///
    /// - Complexity: O(log *s* + *s*), plus the report when not editing.
    public func insertSection(_ section: Section) {
        performEditing {
            retainedSections.insert(section)
            _ = sectionIndex(creating: section)
        }
    }

    /// Removes a section and its elements.
    ///
    /// - Returns: The elements removed, in order (empty when there was no
    ///   such section).
    /// - Complexity: O(log *s* + *s* + *k*) for *k* elements in the
    ///   section, plus the report when not editing.
    @discardableResult
    public func deleteSection(_ section: Section) -> [Element] {
        retainedSections.remove(section)
        guard let index = sectionIndex(of: section) else { return [] }
        return performEditing {
            let removed = sectionEntries[index].map(\.element)
            for element in removed { placements[element.id] = nil }
            sectionKeys.remove(at: index)
            sectionEntries.remove(at: index)
            return removed
        }
    }

    // MARK: Reading

    /// The sections, in order (as last reported).
    ///
    /// - Complexity: O(*s*).
    public var sections: [Section] { snapshot.sections.map(\.key) }
    /// The number of sections (as last reported).
    public var numberOfSections: Int { snapshot.numberOfSections }
    /// The number of elements in a section (as last reported).
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public func numberOfObjects(inSection section: Int) -> Int { snapshot.numberOfItems(inSection: section) }
    /// The element at an index path (as last reported).
    public func object(at indexPath: IndexPath) -> Element { snapshot[indexPath] }
    /// The index path of an element, by its id (as last reported), or `nil`.
    ///
    /// - Complexity: O(*n*).
    public func indexPath(for element: Element) -> IndexPath? { snapshot.indexPath(ofItemWithID: element.id) }

    /// The number of elements, including edits not yet reported.
    public var count: Int { placements.count }

    /// Whether an element with this id is there, including edits not yet
    /// reported.
    public func contains(id: Element.ID) -> Bool { placements[id] != nil }

    /// The content, including edits not yet reported, sectioned and sorted.
    ///
    /// - Complexity: O(*n* + *s*).
    public var currentSnapshot: ResultSnapshot {
        var starts = [0]
        starts.reserveCapacity(sectionKeys.count + 1)
        var items: [Element] = []
        items.reserveCapacity(placements.count)
        for entries in sectionEntries {
            for entry in entries { items.append(entry.element) }
            starts.append(items.count)
        }
        return Snapshot(sections: sectionKeys.map(KeyedSection.init), flatItems: items, sectionStarts: starts)
    }

    // MARK: Internals

    /// Puts an element at its sorted place, creating its section.
    private func place(_ element: Element, order: UInt64) {
        let key = sectionKey(element)
        let s = sectionIndex(creating: key)
        if !removesEmptySections { retainedSections.insert(key) }
        let entry = Entry(element: element, order: order)
        let entries = sectionEntries[s]
        // The first entry that sorts after the new one.
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if precedes(entry, entries[mid]) { high = mid } else { low = mid + 1 }
        }
        sectionEntries[s].insert(entry, at: low)
        placements[element.id] = Placement(section: key, order: order)
    }

    /// Takes an element out, removing its section when it is emptied and
    /// not retained.
    private func unplace(_ id: Element.ID) -> Entry {
        guard let placement = placements.removeValue(forKey: id),
              let s = sectionIndex(of: placement.section),
              let i = sectionEntries[s].firstIndex(where: { $0.element.id == id })
        else { preconditionFailure("element \(id) is placed but not found") }
        let entry = sectionEntries[s].remove(at: i)
        if sectionEntries[s].isEmpty && !retainedSections.contains(placement.section) {
            sectionKeys.remove(at: s)
            sectionEntries.remove(at: s)
        }
        return entry
    }

    private func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        if itemOrder(lhs.element, rhs.element) { return true }
        if itemOrder(rhs.element, lhs.element) { return false }
        return lhs.order < rhs.order
    }

    /// The first section index whose key does not sort before `key`.
    private func lowerBound(_ key: Section) -> Int {
        var low = 0
        var high = sectionKeys.count
        while low < high {
            let mid = (low + high) / 2
            if sectionOrder(sectionKeys[mid], key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index of a section, or `nil`. Keys the section order does not
    /// tell apart are searched one by one.
    private func sectionIndex(of key: Section) -> Int? {
        var s = lowerBound(key)
        while s < sectionKeys.count && !sectionOrder(key, sectionKeys[s]) {
            if sectionKeys[s] == key { return s }
            s += 1
        }
        return nil
    }

    /// The index of a section, inserted at its sorted place (after keys it
    /// is not told apart from) when missing.
    private func sectionIndex(creating key: Section) -> Int {
        var s = lowerBound(key)
        while s < sectionKeys.count && !sectionOrder(key, sectionKeys[s]) {
            if sectionKeys[s] == key { return s }
            s += 1
        }
        sectionKeys.insert(key, at: s)
        sectionEntries.insert([], at: s)
        return s
    }

    /// Diffs the last reported snapshot with the content and reports the
    /// difference, if any.
    private func reportChanges() {
        _checkInvariants()
        // The first report of a user-driven change starts from what the
        // view shows.
        let step = userDrivenStep.flatMap { $0.hasReported ? nil : $0 }
        if step != nil { userDrivenStep?.hasReported = true }
        let old = step?.shown ?? snapshot
        let new = currentSnapshot
        var changeset: Changeset
        do {
            changeset = try diff(from: old, to: new)
        } catch {
            preconditionFailure("a mutable results controller holds repeated ids: \(error)")
        }
        // An element changed in place as the user edited it shows so.
        if case let .update(_, shownElement)? = step?.change { updatedInPlace.remove(shownElement.id) }
        if !updatedInPlace.isEmpty {
            Report.addUpdates(for: updatedInPlace, from: old, to: new, to: &changeset)
            updatedInPlace.removeAll()
        }
        snapshot = new
        var report = Report(changeset: changeset, oldSnapshot: old, newSnapshot: new)
        if let step {
            // Nothing to say when the view shows the result, and the result
            // is the one before the change.
            guard !changeset.isEmpty || new != step.base else { return }
            report.userDrivenChange = step.change
            report.snapshotBeforeUserDrivenChange = step.base
        } else {
            guard !changeset.isEmpty else { return }
        }
        if let delegate {
            delegate.controllerWillChangeContent(self)
            changeset.forEachChange(
                section: { delegate.controller(self, didChangeSectionAt: $0, for: $1, newIndex: $2) },
                item: { delegate.controller(self, didChangeElementAt: $0, for: $1, newIndexPath: $2) }
            )
            delegate.controller(self, didChangeContentWith: report)
        }
        streams.yield(report)
    }

    /// Checks, in O(*n* + *s*), that the sections are in order, each
    /// element is in its section and in order (for value elements: class
    /// elements may have been changed in place without ``didUpdate(_:)``
    /// yet), empty sections are retained ones, and every element is
    /// placed once. Compiled in with `TESSERA_INTERNAL_CHECKS`.
    private func _checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        precondition(sectionKeys.count == sectionEntries.count, "section keys out of step with sections")
        var total = 0
        let values = !(Element.self is AnyObject.Type)
        for s in sectionKeys.indices {
            precondition(s == 0 || !sectionOrder(sectionKeys[s], sectionKeys[s - 1]), "section \(s) sorts before section \(s - 1)")
            let entries = sectionEntries[s]
            precondition(!entries.isEmpty || retainedSections.contains(sectionKeys[s]), "section \(s) is empty and not retained")
            for (i, entry) in entries.enumerated() {
                precondition(placements[entry.element.id]?.section == sectionKeys[s], "element \(entry.element.id) is placed elsewhere")
                guard values else { continue }
                precondition(sectionKey(entry.element) == sectionKeys[s], "element \(entry.element.id) is in the wrong section")
                precondition(i == 0 || precedes(entries[i - 1], entry), "element \(entry.element.id) is out of order in section \(s)")
            }
            total += entries.count
        }
        precondition(total == placements.count, "\(placements.count) elements placed, \(total) in sections")
        #endif
    }
}

@available(*, unavailable)
extension MutableResultsController: Sendable {}
