extension MutableResultsController where Section: Comparable {
    /// Creates an empty controller with ascending sections that sorts
    /// elements with a comparator.
    ///
    /// - Parameters:
    ///   - sectionKey: The section of an element (a key path works).
    ///   - itemOrder: Whether one element sorts before another within a
    ///     section.
    ///   - removesEmptySections: Whether a section goes away with its last
    ///     element.
    public convenience init(
        sectionKey: @escaping (Element) -> Section,
        itemOrder: @escaping (Element, Element) -> Bool,
        removesEmptySections: Bool = true
    ) {
        self.init(sectionKey: sectionKey, sectionOrder: { $0 < $1 }, itemOrder: itemOrder, removesEmptySections: removesEmptySections)
    }

    /// Creates an empty controller with ascending sections that sorts
    /// elements by a list of keys.
    ///
    /// - Parameters:
    ///   - sectionKey: The section of an element (a key path works).
    ///   - sortKeys: The keys elements are sorted by within a section.
    ///   - removesEmptySections: Whether a section goes away with its last
    ///     element.
    public convenience init(
        sectionKey: @escaping (Element) -> Section,
        sortKeys: [ElementSortKey<Element>],
        removesEmptySections: Bool = true
    ) {
        self.init(sectionKey: sectionKey, sectionOrder: { $0 < $1 }, itemOrder: ElementSortKey.order(sortKeys), removesEmptySections: removesEmptySections)
    }
}
