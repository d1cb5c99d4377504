#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An ordered list of sections, each with an ordered list of items: the state
/// a list or grid shows at one moment.
///
/// A snapshot is a value: copy it, change the copy, and diff the two.
///
/// ```swift
/// var snapshot = Snapshot<Album, Photo>()
/// snapshot.appendSection(holidays, items: [beach, sunset])
/// snapshot.appendSection(family, items: [birthday])
/// snapshot[IndexPath(item: 1, section: 0)]   // sunset
/// ```
///
/// Items are stored in one flat array in section order, with the offset at
/// which each section starts, so reading an item or a section's items is
/// O(1), and a diff over the whole snapshot is one pass.
///
/// Identity is `Identifiable.id`; content is `Equatable`. A snapshot may hold
/// duplicate ids while it is being built; ``diff(from:to:)-(Snapshot<Section,Item>,_)``
/// reports them as an error.
public struct Snapshot<Section: Identifiable & Equatable, Item: Identifiable & Equatable> {
    @usableFromInline var _sections: [Section]
    @usableFromInline var _items: [Item]
    /// `_sectionStarts[s]` is the flat offset of section `s`'s first item;
    /// the last element is `_items.count`. Always `_sections.count + 1` long.
    @usableFromInline var _sectionStarts: [Int]

    /// Creates an empty snapshot.
    @inlinable
    public init() {
        _sections = []
        _items = []
        _sectionStarts = [0]
    }

    /// Creates a snapshot from sections paired with their items.
    ///
    /// - Complexity: O(*n*) in the total number of items.
    @inlinable
    public init<S: Sequence, Items: Sequence>(_ sections: S) where S.Element == (Section, Items), Items.Element == Item {
        self.init()
        for (section, items) in sections {
            appendSection(section, items: items)
        }
    }

    /// Creates a snapshot from its flat storage, without copying: the
    /// items of all sections in order and each section's first flat offset
    /// followed by the item count.
    package init(sections: [Section], flatItems: [Item], sectionStarts: [Int]) {
        precondition(sectionStarts.count == sections.count + 1 && sectionStarts.first == 0 && sectionStarts.last == flatItems.count,
                     "section starts \(sectionStarts.count) do not match \(sections.count) sections of \(flatItems.count) items")
        _sections = sections
        _items = flatItems
        _sectionStarts = sectionStarts
    }

    // MARK: Reading

    /// The sections, in order.
    @inlinable
    public var sections: [Section] { _sections }

    /// Every item of every section, in section order.
    @inlinable
    public var allItems: [Item] { _items }

    /// The number of sections.
    @inlinable
    public var numberOfSections: Int { _sections.count }

    /// The number of items in all sections together.
    @inlinable
    public var numberOfItems: Int { _items.count }

    /// The number of items in a section.
    ///
    /// - Precondition: `section` is a valid section index.
    @inlinable
    public func numberOfItems(inSection section: Int) -> Int {
        _checkSection(section)
        return _sectionStarts[section + 1] - _sectionStarts[section]
    }

    /// The items of a section, in order.
    ///
    /// - Precondition: `section` is a valid section index.
    @inlinable
    public func items(inSection section: Int) -> ArraySlice<Item> {
        _checkSection(section)
        return _items[_sectionStarts[section]..<_sectionStarts[section + 1]]
    }

    /// The number of items in each section, in section order: the counts a
    /// batch validator compares.
    ///
    /// - Complexity: O(*s*) in the number of sections.
    @inlinable
    public var itemCounts: [Int] {
        (0..<_sections.count).map { _sectionStarts[$0 + 1] - _sectionStarts[$0] }
    }

    /// The item at an index path.
    ///
    /// - Precondition: `indexPath` names an existing item.
    @inlinable
    public subscript(indexPath: IndexPath) -> Item {
        get { _items[_flatOffset(indexPath)] }
        set { _items[_flatOffset(indexPath)] = newValue }
    }

    /// The section at an index.
    ///
    /// - Precondition: `section` is a valid section index.
    @inlinable
    public subscript(section section: Int) -> Section {
        get { _checkSection(section); return _sections[section] }
        set { _checkSection(section); _sections[section] = newValue }
    }

    /// The index path of the item at a flat offset (its position in
    /// ``allItems``).
    ///
    /// - Complexity: O(log *s*) in the number of sections.
    @inlinable
    public func indexPath(forFlatOffset offset: Int) -> IndexPath {
        precondition(offset >= 0 && offset < _items.count, "flat offset \(offset) is outside 0..<\(_items.count)")
        // The last section whose start is <= offset and which is not empty.
        var low = 0
        var high = _sections.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if _sectionStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return IndexPath(item: offset - _sectionStarts[low], section: low)
    }

    /// The flat offset (position in ``allItems``) of the item at an index path.
    ///
    /// - Precondition: `indexPath` names an existing item.
    @inlinable
    public func flatOffset(of indexPath: IndexPath) -> Int { _flatOffset(indexPath) }

    /// The index path of the first item with an id, or `nil`.
    ///
    /// - Complexity: O(*n*) in the total number of items.
    @inlinable
    public func indexPath(ofItemWithID id: Item.ID) -> IndexPath? {
        guard let offset = _items.firstIndex(where: { $0.id == id }) else { return nil }
        return indexPath(forFlatOffset: offset)
    }

    /// The index of the first section with an id, or `nil`.
    ///
    /// - Complexity: O(*s*) in the number of sections.
    @inlinable
    public func index(ofSectionWithID id: Section.ID) -> Int? {
        _sections.firstIndex { $0.id == id }
    }

    // MARK: Building

    /// Appends a section with its items.
    ///
    /// - Complexity: O(*k*) in the number of appended items (amortized).
    @inlinable
    public mutating func appendSection<Items: Sequence>(_ section: Section, items: Items) where Items.Element == Item {
        _sections.append(section)
        _items.append(contentsOf: items)
        _sectionStarts.append(_items.count)
        _checkInvariants()
    }

    /// Appends an empty section.
    @inlinable
    public mutating func appendSection(_ section: Section) {
        appendSection(section, items: EmptyCollection())
    }

    /// Appends items to the end of a section.
    ///
    /// - Complexity: O(*k*) for the last section; otherwise also O(*n* + *s*)
    ///   to shift the items and sections after it.
    @inlinable
    public mutating func appendItems<Items: Collection>(_ items: Items, toSection section: Int) where Items.Element == Item {
        _checkSection(section)
        let end = _sectionStarts[section + 1]
        _items.insert(contentsOf: items, at: end)
        for s in (section + 1)..._sections.count { _sectionStarts[s] += items.count }
        _checkInvariants()
    }

    /// Inserts a section with its items before the section at `index`.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    public mutating func insertSection<Items: Collection>(_ section: Section, items: Items, at index: Int) where Items.Element == Item {
        precondition(index >= 0 && index <= _sections.count, "section index \(index) is outside 0...\(_sections.count)")
        let start = _sectionStarts[index]
        _sections.insert(section, at: index)
        _items.insert(contentsOf: items, at: start)
        _sectionStarts.insert(start, at: index)
        for s in (index + 1)..._sections.count { _sectionStarts[s] += items.count }
        _checkInvariants()
    }

    /// Removes a section and its items, returning the section.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    @discardableResult
    public mutating func removeSection(at index: Int) -> Section {
        _checkSection(index)
        let range = _sectionStarts[index]..<_sectionStarts[index + 1]
        _items.removeSubrange(range)
        _sectionStarts.remove(at: index + 1)
        for s in (index + 1)..<_sectionStarts.count { _sectionStarts[s] -= range.count }
        defer { _checkInvariants() }
        return _sections.remove(at: index)
    }

    /// Inserts an item so that it ends up at `indexPath`.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    public mutating func insertItem(_ item: Item, at indexPath: IndexPath) {
        let section = indexPath.section
        _checkSection(section)
        let count = _sectionStarts[section + 1] - _sectionStarts[section]
        precondition(indexPath.item >= 0 && indexPath.item <= count, "item \(indexPath.item) is outside 0...\(count) in section \(section)")
        _items.insert(item, at: _sectionStarts[section] + indexPath.item)
        for s in (section + 1)..._sections.count { _sectionStarts[s] += 1 }
        _checkInvariants()
    }

    /// Removes the item at `indexPath`, returning it.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    @discardableResult
    public mutating func removeItem(at indexPath: IndexPath) -> Item {
        let offset = _flatOffset(indexPath)
        for s in (indexPath.section + 1)..._sections.count { _sectionStarts[s] -= 1 }
        defer { _checkInvariants() }
        return _items.remove(at: offset)
    }

    // MARK: Internals

    @inlinable
    func _checkSection(_ section: Int) {
        precondition(section >= 0 && section < _sections.count, "section \(section) is outside 0..<\(_sections.count)")
    }

    @inlinable
    func _flatOffset(_ indexPath: IndexPath) -> Int {
        precondition(indexPath.count == 2, "index path \(indexPath) does not name an item")
        let section = indexPath.section
        _checkSection(section)
        let start = _sectionStarts[section]
        let count = _sectionStarts[section + 1] - start
        precondition(indexPath.item >= 0 && indexPath.item < count, "item \(indexPath.item) is outside 0..<\(count) in section \(section)")
        return start + indexPath.item
    }

    /// Checks the storage invariants a mutation can break, in O(1): the
    /// section starts are one more than the sections and span the items.
    /// Compiled in with `TESSERA_INTERNAL_CHECKS`.
    @inlinable
    func _checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        precondition(_sectionStarts.count == _sections.count + 1, "section starts out of step with sections")
        precondition(_sectionStarts.first == 0 && _sectionStarts.last == _items.count, "section starts do not cover the items")
        #endif
    }

    /// Checks every storage invariant, in O(*s*): also that the section
    /// starts ascend. Compiled in with `TESSERA_INTERNAL_CHECKS`.
    @inlinable
    func _checkAllInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        _checkInvariants()
        for s in 0..<_sections.count {
            precondition(_sectionStarts[s] <= _sectionStarts[s + 1], "section starts are not ascending at \(s)")
        }
        #endif
    }
}

extension Snapshot: Sendable where Section: Sendable, Item: Sendable {}
