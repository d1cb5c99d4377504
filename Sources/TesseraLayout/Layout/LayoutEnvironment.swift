/// What a layout reads of the collection view it lays out: what UIKit's
/// `collectionView` property gives a layout, and no more, so a layout can be
/// tested with no collection view at all.
public protocol LayoutEnvironment: AnyObject {
    /// The visible rectangle, in content coordinates: its origin is the
    /// content offset.
    var bounds: Rect { get }
    /// The inset of the content from the edges of the bounds.
    var contentInset: EdgeInsets { get }
    /// The number of sections.
    var numberOfSections: Int { get }
    /// The number of items in a section.
    func numberOfItems(inSection section: Int) -> Int
    /// The direction the content runs in: UIKit's
    /// `effectiveUserInterfaceLayoutDirection`. A layout that flips (see
    /// ``CollectionViewLayout/flipsHorizontallyInOppositeLayoutDirection``)
    /// mirrors its frames when it differs from the layout's
    /// ``CollectionViewLayout/developmentLayoutDirection``.
    /// ``LayoutDirection/leftToRight`` unless the environment says otherwise.
    var effectiveLayoutDirection: LayoutDirection { get }
}

extension LayoutEnvironment {
    /// Left to right: an environment that does not name a direction lays
    /// out as it always has.
    public var effectiveLayoutDirection: LayoutDirection { .leftToRight }

    /// The content offset: the origin of the bounds.
    public var contentOffset: Point { bounds.origin }
}

/// A layout environment with fixed counts and a settable viewport: enough to
/// run a layout without a collection view (in tests, benchmarks, or to
/// compute frames for a renderer). Not thread-safe.
public final class StaticLayoutEnvironment: LayoutEnvironment {
    /// The visible rectangle in content coordinates.
    public var bounds: Rect
    /// The content inset.
    public var contentInset: EdgeInsets
    /// The number of items in each section.
    public var itemCounts: [Int]
    /// The direction the content runs in. Left to right unless set.
    ///
    /// Tessera's layouts read it at every query, so a new value shows at
    /// once; a layout of your own that reads it in `prepare()` needs
    /// `invalidateLayout()` and `prepare()` after a change.
    public var effectiveLayoutDirection: LayoutDirection = .leftToRight

    /// Creates an environment.
    ///
    /// - Parameters:
    ///   - size: The viewport size; the content offset starts at zero.
    ///   - itemCounts: The number of items in each section.
    ///   - contentInset: The content inset.
    public init(size: Size, itemCounts: [Int], contentInset: EdgeInsets = .zero) {
        self.bounds = Rect(origin: .zero, size: size)
        self.itemCounts = itemCounts
        self.contentInset = contentInset
    }

    /// The number of sections.
    public var numberOfSections: Int { itemCounts.count }

    /// The number of items in a section.
    public func numberOfItems(inSection section: Int) -> Int { itemCounts[section] }
}

@available(*, unavailable)
extension StaticLayoutEnvironment: Sendable {}
