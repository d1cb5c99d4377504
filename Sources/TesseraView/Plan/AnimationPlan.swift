#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraLayout

/// What a collection view shows while it animates a change: every element
/// visible before or after, where it starts and ends, why, and which view
/// shows it. Any renderer (a terminal, an HTML page, a GTK widget, a test)
/// can play it with ``attributes(at:)``.
///
/// Plans are values: the same inputs give the same plan, byte for byte when
/// encoded.
public struct AnimationPlan: Hashable, Codable, Sendable {
    /// Why an element moves (or not).
    public enum Disposition: String, Hashable, Codable, Sendable, CaseIterable {
        /// It appears: inserted, in an inserted section, or a header or
        /// footer its section gains. It has no index path before.
        case insert
        /// It disappears: deleted, in a deleted section, or a header or
        /// footer its section loses. It has no index path after.
        case delete
        /// It was moved by the update (or its section was).
        case move
        /// It was reloaded (or its section was): new content.
        case reload
        /// It moved only because others changed (any of its attributes
        /// other than the index path differ).
        case shift
        /// Nothing about it changed but, at most, its index path.
        case unchanged

        /// `.unchanged` when the attributes differ at most in their index
        /// path, `.shift` otherwise: the one rule every plan uses.
        static func settled(from start: LayoutAttributes, to end: LayoutAttributes) -> Disposition {
            var start = start
            start.indexPath = end.indexPath
            return start == end ? .unchanged : .shift
        }
    }

    /// One element of the plan.
    public struct Element: Hashable, Codable, Sendable {
        /// Cell, supplementary view or decoration view, with its kind.
        public var category: ElementCategory
        /// Its index path before the change, or `nil` when it appears.
        public var indexPathBefore: IndexPath?
        /// Its index path after the change, or `nil` when it disappears.
        public var indexPathAfter: IndexPath?
        /// The item's id (from a ``DiffableDataSource``), when known.
        public var itemID: String?
        /// Where it starts.
        public var from: LayoutAttributes
        /// Where it ends.
        public var to: LayoutAttributes
        /// Why it moves.
        public var disposition: Disposition
        /// Whether its content changed (a reload, or an update of an element
        /// that also moved).
        public var contentChanged: Bool
        /// The view that shows it.
        public var view: ViewIdentity
        /// Whether the item is selected: after the change when it has an
        /// index path after, before the change when it disappears. Always
        /// `false` for supplementary and decoration views. Encoded only
        /// when `true`; a plan encoded without it decodes as `false`.
        public var isSelected = false
        /// Whether the item is highlighted (touched), with the same rule as
        /// ``isSelected``: after the change when it has an index path
        /// after, before the change when it disappears.
        public var isHighlighted = false

        /// Creates an element.
        public init(
            category: ElementCategory,
            indexPathBefore: IndexPath?,
            indexPathAfter: IndexPath?,
            itemID: String? = nil,
            from: LayoutAttributes,
            to: LayoutAttributes,
            disposition: Disposition,
            contentChanged: Bool = false,
            view: ViewIdentity,
            isSelected: Bool = false,
            isHighlighted: Bool = false
        ) {
            self.isSelected = isSelected
            self.isHighlighted = isHighlighted
            self.category = category
            self.indexPathBefore = indexPathBefore
            self.indexPathAfter = indexPathAfter
            self.itemID = itemID
            self.from = from
            self.to = to
            self.disposition = disposition
            self.contentChanged = contentChanged
            self.view = view
        }
    }

    /// Every element visible before or after: those visible after in the
    /// layout's query order (sections ascending, supplementary views before
    /// items), then those only visible before, in the same order.
    public var elements: [Element]
    /// The content size before the change.
    public var contentSizeBefore: Size
    /// The content size after the change.
    public var contentSizeAfter: Size
    /// The content offset before the change.
    public var contentOffsetBefore: Point
    /// The content offset after the change.
    public var contentOffsetAfter: Point
    /// How long the animation lasts, in seconds (0 when not animated).
    public var duration: Double
    /// The animation's timing curve.
    public var timing: AnimationTiming
    /// Views taken from the reuse pool (or made) for elements that appear.
    public var dequeuedViews: [ViewIdentity]
    /// Views returned to the reuse pool once the animation ends.
    public var recycledViews: [ViewIdentity]

    /// Creates a plan from its parts.
    public init(
        elements: [Element],
        contentSizeBefore: Size,
        contentSizeAfter: Size,
        contentOffsetBefore: Point,
        contentOffsetAfter: Point,
        duration: Double,
        timing: AnimationTiming,
        dequeuedViews: [ViewIdentity],
        recycledViews: [ViewIdentity]
    ) {
        self.elements = elements
        self.contentSizeBefore = contentSizeBefore
        self.contentSizeAfter = contentSizeAfter
        self.contentOffsetBefore = contentOffsetBefore
        self.contentOffsetAfter = contentOffsetAfter
        self.duration = duration
        self.timing = timing
        self.dequeuedViews = dequeuedViews
        self.recycledViews = recycledViews
    }

    /// Every element's attributes at `progress` (0…1) of the animation, in
    /// ``elements`` order: frame, alpha, transform and custom values
    /// interpolated along ``timing``.
    ///
    /// - Complexity: O(*e*) for *e* elements.
    public func attributes(at progress: Double) -> [LayoutAttributes] {
        let fraction = timing.fraction(at: progress, duration: duration)
        return elements.map { $0.from.interpolated(to: $0.to, progress: fraction) }
    }

    /// The content offset at `progress` (0…1) of the animation.
    public func contentOffset(at progress: Double) -> Point {
        let fraction = timing.fraction(at: progress, duration: duration)
        return Point(
            x: contentOffsetBefore.x + (contentOffsetAfter.x - contentOffsetBefore.x) * fraction,
            y: contentOffsetBefore.y + (contentOffsetAfter.y - contentOffsetBefore.y) * fraction
        )
    }

    /// The elements with a disposition.
    public func elements(_ disposition: Disposition) -> [Element] {
        elements.filter { $0.disposition == disposition }
    }
}
