#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A vertical, row-based flow whose items are grouped by style, after
/// TheNounProject CollectionView's `CollectionViewFlowLayout`.
///
/// ```swift
/// final class Styles: StyledFlowLayoutDelegate {
///     func styledFlowLayout(_ layout: StyledFlowLayout, styleForItemAt indexPath: IndexPath) -> StyledFlowLayout.ItemStyle {
///         indexPath[1] % 5 == 4 ? .span(Size(width: 0, height: 44)) : .flow(Size(width: 100, height: 100))
///     }
/// }
/// let styles = Styles()
/// let layout = StyledFlowLayout()
/// layout.delegate = styles
/// layout.rowTransform = .center
/// layout.collectionView = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [40])
/// layout.prepare()
/// ```
///
/// Each item has a style (``ItemStyle``) from the ``delegate``:
/// - A ``ItemStyle/flow(_:)`` item joins the current row only if the
///   previous item is a flow item of the same height and it fits in the
///   remaining width (`used + interitemSpacing + width ≤ contentWidth`);
///   otherwise it starts a new row. An item wider than the content width is
///   scaled down proportionally to the content width.
/// - A ``ItemStyle/span(_:)`` item takes a row of its own and fills the
///   content width; its style gives its height.
///
/// Rows are ``interitemSpacing`` apart, except that ``spanGroupSpacingBefore``
/// comes before the first span after flow items, ``interspanSpacing`` between
/// spans and ``spanGroupSpacingAfter`` after the last span of a group; each
/// of these falls back to ``interitemSpacing`` when `nil`. When a flow row
/// is complete its ``RowTransform`` applies (``rowTransform``, or the
/// delegate's per section), before the next row is placed below it.
///
/// A section stacks its header, top inset, rows, bottom inset and footer;
/// sections abut, and the content is as tall as the sections. The content
/// width between a section's insets is the content width.
///
/// The content encloses every frame (see ``FrameStorageLayout``): it is as
/// wide as the view, or wider where a frame reaches further (insets wider
/// than the view, or a custom row transform that places items past the
/// trailing edge), and a custom row transform may not place an item before
/// the content's leading edge.
///
/// Frames live in flat arrays per section (one band per row); rect queries run in
/// O(log *n* + *k*).
open class StyledFlowLayout: FrameStorageLayout {
    /// The spacing between items on a row and between rows. 8.
    public var interitemSpacing: Double = 8 { didSet { invalidateLayout() } }
    /// The spacing between two span rows; `nil` uses ``interitemSpacing``.
    public var interspanSpacing: Double? { didSet { invalidateLayout() } }
    /// The spacing before the first span row that follows a flow row; `nil`
    /// uses ``interitemSpacing``.
    public var spanGroupSpacingBefore: Double? { didSet { invalidateLayout() } }
    /// The spacing after the last span row of a group, before a flow row;
    /// `nil` uses ``interitemSpacing``.
    public var spanGroupSpacingAfter: Double? { didSet { invalidateLayout() } }
    /// The style of every item when there is no delegate. Flow, 60×60.
    public var defaultItemStyle = ItemStyle.flow(Size(width: 60, height: 60)) { didSet { invalidateLayout() } }
    /// The transform of every flow row, unless the delegate says otherwise.
    /// ``RowTransform/none``.
    public var rowTransform = RowTransform.none { didSet { invalidateLayout() } }
    /// The insets of every section. Zero.
    public var sectionInset = EdgeInsets.zero { didSet { invalidateLayout() } }
    /// The height of every header (0: none). 0.
    public var headerHeight: Double = 0 { didSet { invalidateLayout() } }
    /// The height of every footer (0: none). 0.
    public var footerHeight: Double = 0 { didSet { invalidateLayout() } }
    /// Whether headers and footers are inset like the items (else they span
    /// the whole width). False.
    public var insetSupplementaryViews = false { didSet { invalidateLayout() } }
    /// Item styles and per-section values.
    public weak var delegate: (any StyledFlowLayoutDelegate)? { didSet { invalidateLayout() } }

    var preparedWidth: Double?

    /// Creates a styled flow layout.
    public init() {
        super.init(direction: .vertical)
    }

    // MARK: Preparing

    /// Lays out the sections an invalidation context names and shifts the
    /// others (all of them when the width changed; see
    /// ``FrameStorageLayout`` for which it keeps, and a kept section's
    /// delegate answers are assumed unchanged).
    ///
    /// Bad sizes, insets, spacings and fill scales are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero (a bad fill
    /// scale by ``RowTransform/none``); a custom row transform that breaks
    /// its contract is recorded and its row left untransformed.
    ///
    /// - Complexity: O(*n* + *s*) for the items and sections laid out, plus
    ///   what custom row transforms cost; no allocation per item except
    ///   for custom transforms.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            clearFrames()
            preparedWidth = nil
            return
        }
        let width = visibleSize(in: environment).width
        let plan = sectionPlan(context: context, framesStillValid: preparedWidth == width, hasDelegate: delegate != nil, environment: environment)
        var (store, check) = beginPass(plan: plan, direction: .vertical)
        let interitem = check.length(interitemSpacing, section: nil, .property("interitemSpacing"))
        let spacings = _StyledRowSpacings(
            interitem: interitem,
            interspan: interspanSpacing.map { check.length($0, section: nil, .property("interspanSpacing")) } ?? interitem,
            before: spanGroupSpacingBefore.map { check.length($0, section: nil, .property("spanGroupSpacingBefore")) } ?? interitem,
            after: spanGroupSpacingAfter.map { check.length($0, section: nil, .property("spanGroupSpacingAfter")) } ?? interitem
        )
        let defaultStyle = Self.checked(defaultItemStyle, check: check, section: nil, .property("defaultItemStyle"))
        let defaultTransform = Self.checked(rowTransform, check: check, section: nil, name: "rowTransform")
        let sectionInset = check.insets(self.sectionInset, section: nil, .property("sectionInset"))
        let headerHeight = check.length(self.headerHeight, section: nil, .property("headerHeight"))
        let footerHeight = check.length(self.footerHeight, section: nil, .property("footerHeight"))
        let delegate = self.delegate

        for section in plan.sectionsToLayOut {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            store.beginSection(section, itemCount: count)
            let insets = delegate?.styledFlowLayout(self, insetsForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInset
            let header = delegate?.styledFlowLayout(self, heightForHeaderInSection: section).map { check.length($0, section: section, .headerSize(section: section)) } ?? headerHeight
            let footer = delegate?.styledFlowLayout(self, heightForFooterInSection: section).map { check.length($0, section: section, .footerSize(section: section)) } ?? footerHeight
            let transform = delegate?.styledFlowLayout(self, rowTransformForSectionAt: section).map {
                Self.checked($0, check: check, section: section, name: "rowTransform of section \(section)")
            } ?? defaultTransform
            let contentWidth = Swift.max(0, width - insets.left - insets.right)
            let supplementaryX = insetSupplementaryViews ? insets.left : 0
            let supplementaryWidth = insetSupplementaryViews ? contentWidth : width
            // The section is laid out from its own origin.
            var top = 0.0

            var headerFrame: Rect?
            if header > 0 {
                headerFrame = Rect(x: supplementaryX, y: top, width: supplementaryWidth, height: header)
                top += header
            }
            top += insets.top

            var rows = _StyledRows(
                section: section, left: insets.left, contentWidth: contentWidth,
                spacings: spacings, transform: transform, check: check
            )
            for item in 0..<count {
                var style = defaultStyle
                if let delegate {
                    let path = IndexPath(item: item, section: section)
                    style = Self.checked(delegate.styledFlowLayout(self, styleForItemAt: path), check: check, section: section, .itemSize(path))
                }
                rows.add(style, top: &top, to: &store)
            }
            rows.closeRow(top: &top, in: &store)
            top += insets.bottom

            var footerFrame: Rect?
            if footer > 0 {
                footerFrame = Rect(x: supplementaryX, y: top, width: supplementaryWidth, height: footer)
                top += footer
            }
            store.endSection(
                bounds: Rect(x: 0, y: 0, width: width, height: top),
                header: headerFrame, footer: footerFrame, itemsAreBands: rows.everyRowSingle, extent: top
            )
        }
        let top = endPass(store)
        naturalContentSize = Size(width: width, height: top)
        preparedWidth = width
    }

    /// A style whose size is valid, or the same style with a zero size.
    private static func checked(_ style: ItemStyle, check: _ValueCheck, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> ItemStyle {
        switch style {
        case let .flow(size): .flow(check.size(size, section: section, subject()))
        case let .span(size): .span(check.size(size, section: section, subject()))
        }
    }

    /// A transform whose fill scale is valid, or ``RowTransform/none``.
    private static func checked(_ transform: RowTransform, check: _ValueCheck, section: Int?, name: @autoclosure () -> String) -> RowTransform {
        if case let .fill(maxScale) = transform, !(maxScale.isFinite && maxScale >= 0) {
            check.report(LayoutError(subject: .property(name()), value: "fill(maxScale: \(maxScale))"), section)
            return .none
        }
        return transform
    }

    // MARK: Invalidation

    /// True only when the width changes (rows re-wrap).
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        return newBounds.size.width != environment.bounds.size.width
    }
}

/// The spacings between rows, with the fallbacks to the interitem spacing
/// resolved.
struct _StyledRowSpacings {
    /// Between items on a row, and between rows otherwise.
    let interitem: Double
    /// Between two span rows.
    let interspan: Double
    /// Before a span row that follows a flow row.
    let before: Double
    /// Before a flow row that follows a span row.
    let after: Double
}

/// The rows of one section of a ``StyledFlowLayout`` while they are filled:
/// the open row's extent, and the placing of rows and their transforms.
struct _StyledRows {
    let section: Int
    let left: Double
    let contentWidth: Double
    let spacings: _StyledRowSpacings
    let transform: StyledFlowLayout.RowTransform
    let check: _ValueCheck

    /// Flat offset of the open row's first item, or `nil` before the first
    /// row of the section.
    private var start: Int?
    private var rowTop = 0.0
    private var rowIsSpan = false
    /// The open row's width from its first item's leading edge to its last
    /// item's trailing edge.
    private var used = 0.0
    /// The open row's height (all its items are this tall).
    private var height = 0.0
    /// Whether every closed row holds a single item.
    private(set) var everyRowSingle = true

    init(section: Int, left: Double, contentWidth: Double, spacings: _StyledRowSpacings, transform: StyledFlowLayout.RowTransform, check: _ValueCheck) {
        self.section = section
        self.left = left
        self.contentWidth = contentWidth
        self.spacings = spacings
        self.transform = transform
        self.check = check
    }

    /// Places an item: on the open row when it may join it, else on a new
    /// row below the open one, which then closes. `top` is the bottom of
    /// what is placed so far.
    mutating func add(_ style: StyledFlowLayout.ItemStyle, top: inout Double, to store: inout _FrameStore) {
        switch style {
        case let .flow(size):
            var width = size.width
            var itemHeight = size.height
            if width > contentWidth {
                itemHeight *= contentWidth / width
                width = contentWidth
            }
            if start != nil, !rowIsSpan, itemHeight == height, used + spacings.interitem + width <= contentWidth + 1e-9 {
                store.itemFrames.append(Rect(x: left + used + spacings.interitem, y: rowTop, width: width, height: itemHeight))
                used += spacings.interitem + width
                return
            }
            let gap = start == nil ? 0 : rowIsSpan ? spacings.after : spacings.interitem
            closeRow(top: &top, in: &store)
            openRow(top: top + gap, isSpan: false, width: width, height: itemHeight, in: &store)
        case let .span(size):
            let gap = start == nil ? 0 : rowIsSpan ? spacings.interspan : spacings.before
            closeRow(top: &top, in: &store)
            openRow(top: top + gap, isSpan: true, width: contentWidth, height: size.height, in: &store)
        }
    }

    private mutating func openRow(top: Double, isSpan: Bool, width: Double, height: Double, in store: inout _FrameStore) {
        start = store.itemFrames.count
        rowTop = top
        rowIsSpan = isSpan
        used = width
        self.height = height
        store.itemFrames.append(Rect(x: left, y: top, width: width, height: height))
    }

    /// Closes the open row, if any: applies the transform to a flow row,
    /// records the row as a band and moves `top` to its bottom.
    mutating func closeRow(top: inout Double, in store: inout _FrameStore) {
        guard let start else { return }
        let end = store.itemFrames.count
        everyRowSingle = everyRowSingle && end - start == 1
        if !rowIsSpan {
            height = transformRow(start..<end, in: &store)
        }
        store.addBand(start: start, minS: rowTop, maxS: rowTop + height)
        top = rowTop + height
        self.start = nil
    }

    /// Applies the transform to the flow row `items`; returns the row's new
    /// height.
    private func transformRow(_ items: Range<Int>, in store: inout _FrameStore) -> Double {
        switch transform {
        case .none:
            return height
        case .center:
            let shift = (contentWidth - used) / 2
            for index in items { store.itemFrames[index].origin.x += shift }
            return height
        case let .fill(maxScale):
            guard used > 0 else { return height }
            var scale = contentWidth / used
            if scale > 1 { scale = Swift.max(1, Swift.min(scale, maxScale)) }
            // Only absurd sizes (a near-zero row under a huge cap) overflow.
            guard (height * scale).isFinite && (used * scale).isFinite else { return height }
            var x = left
            for index in items {
                let size = store.itemFrames[index].size
                let scaled = Size(width: size.width * scale, height: size.height * scale)
                store.itemFrames[index] = Rect(origin: Point(x: x, y: rowTop), size: scaled)
                x += scaled.width + spacings.interitem
            }
            return height * scale
        case let .custom(body):
            let row = items.map { store.itemFrames[$0].offsetBy(dx: -left, dy: -rowTop) }
            let result = body(row, contentWidth)
            if let problem = Self.problem(with: result, count: row.count, left: left) {
                check.report(LayoutError(
                    subject: .property("rowTransform of section \(section), row of items \(items.lowerBound)...\(items.upperBound - 1)"),
                    value: problem
                ), section)
                return height
            }
            var newHeight = 0.0
            for (index, frame) in zip(items, result) {
                store.itemFrames[index] = frame.offsetBy(dx: left, dy: rowTop)
                newHeight = Swift.max(newHeight, frame.maxY)
            }
            return newHeight
        }
    }

    /// What is wrong with a custom transform's frames (relative to a row
    /// whose leading inset is `left`), or `nil`.
    private static func problem(with frames: [Rect], count: Int, left: Double) -> String? {
        if frames.count != count { return "\(frames.count) frames for \(count) items" }
        for frame in frames {
            let valid = LayoutValue.isValidOffset(frame.origin.x) && frame.origin.x >= -left && LayoutValue.isValidLength(frame.origin.y)
                && frame.size.isValid && LayoutValue.isValidLength(frame.maxY)
            if !valid { return "the frame \(frame)" }
        }
        return nil
    }
}
