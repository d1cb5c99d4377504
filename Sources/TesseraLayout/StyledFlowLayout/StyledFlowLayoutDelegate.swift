#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Per-item and per-section values for a ``StyledFlowLayout``, after
/// TheNounProject CollectionView's `CollectionViewDelegateFlowLayout`.
///
/// Only ``styledFlowLayout(_:styleForItemAt:)`` is required; every other
/// method is optional: return `nil` (the default) to use the layout's
/// property.
public protocol StyledFlowLayoutDelegate: AnyObject {
    /// The style of an item: a ``StyledFlowLayout/ItemStyle/flow(_:)`` item
    /// that shares its row with like-sized neighbours, or a
    /// ``StyledFlowLayout/ItemStyle/span(_:)`` item on a row of its own.
    func styledFlowLayout(_ layout: StyledFlowLayout, styleForItemAt indexPath: IndexPath) -> StyledFlowLayout.ItemStyle
    /// The height of a section's header (0: none).
    func styledFlowLayout(_ layout: StyledFlowLayout, heightForHeaderInSection section: Int) -> Double?
    /// The height of a section's footer (0: none).
    func styledFlowLayout(_ layout: StyledFlowLayout, heightForFooterInSection section: Int) -> Double?
    /// The insets of a section.
    func styledFlowLayout(_ layout: StyledFlowLayout, insetsForSectionAt section: Int) -> EdgeInsets?
    /// The transform applied to each flow row of a section.
    func styledFlowLayout(_ layout: StyledFlowLayout, rowTransformForSectionAt section: Int) -> StyledFlowLayout.RowTransform?
}

extension StyledFlowLayoutDelegate {
    /// `nil`: the layout's ``StyledFlowLayout/headerHeight``.
    public func styledFlowLayout(_ layout: StyledFlowLayout, heightForHeaderInSection section: Int) -> Double? { nil }
    /// `nil`: the layout's ``StyledFlowLayout/footerHeight``.
    public func styledFlowLayout(_ layout: StyledFlowLayout, heightForFooterInSection section: Int) -> Double? { nil }
    /// `nil`: the layout's ``StyledFlowLayout/sectionInset``.
    public func styledFlowLayout(_ layout: StyledFlowLayout, insetsForSectionAt section: Int) -> EdgeInsets? { nil }
    /// `nil`: the layout's ``StyledFlowLayout/rowTransform``.
    public func styledFlowLayout(_ layout: StyledFlowLayout, rowTransformForSectionAt section: Int) -> StyledFlowLayout.RowTransform? { nil }
}

// The styles and transforms are nested in the layout (as in the layout this
// one is modeled on) so that their short names do not claim the module's
// namespace, where other layouts have styles of their own.
extension StyledFlowLayout {
    /// How an item takes part in the rows of a ``StyledFlowLayout``.
    public enum ItemStyle: Hashable, Sendable {
        /// An item that shares its row with the flow items before it that
        /// have the same height, as long as it fits. An item wider than the
        /// content width is scaled down, keeping its aspect ratio.
        case flow(Size)
        /// An item on a row of its own that fills the content width; only
        /// the size's height is used (its width must still be valid).
        case span(Size)

        /// The size the style gives.
        public var size: Size {
            switch self {
            case let .flow(size), let .span(size): size
            }
        }

        /// Whether this is a ``span(_:)`` item.
        public var isSpan: Bool {
            if case .span = self { return true }
            return false
        }
    }

    /// What happens to a row of flow items once it is complete (another item
    /// did not join it, or it is the last row of its section). Rows of span
    /// items already fill the content width and are never transformed.
    public enum RowTransform: Sendable {
        /// The row stays against the leading inset, items
        /// ``StyledFlowLayout/interitemSpacing`` apart.
        case none
        /// The row, unchanged in size, is shifted to the middle of the
        /// content width.
        case center
        /// The row's items are scaled by *s* = content width / row width
        /// (the row width counts the spacings between items), with *s* capped
        /// at `maxScale` when it is above 1, then placed again from the
        /// leading inset with ``StyledFlowLayout/interitemSpacing`` between
        /// them. Heights scale too, so a filled row grows taller. A
        /// `maxScale` of 1 or less leaves rows that have room to spare as
        /// they are; it must be finite and not negative (use
        /// `.greatestFiniteMagnitude` for no cap).
        case fill(maxScale: Double)
        /// The row's frames are replaced by what the closure returns.
        ///
        /// Contract: the closure receives the row's item frames in item
        /// order, *relative to the row*: x is measured from the section's
        /// leading inset (the first item is at x 0) and y from the row's top
        /// (every frame is at y 0), and the content width between the
        /// section's insets. It returns one frame per item, in the same
        /// order and in the same relative coordinates; the layout moves them
        /// back into place and makes the row as tall as the lowest returned
        /// frame's bottom. Every returned frame must be finite, with a size
        /// that is not negative, a y that is not negative (a row cannot
        /// reach above its own top) and an x not below minus the section's
        /// leading inset (a row cannot reach past the content's leading
        /// edge, where nothing can be scrolled to); a frame may reach past
        /// the trailing edge, and the content then grows to enclose it. A
        /// result that breaks the contract (wrong count, NaN or infinite
        /// values, negative sizes or y, an x before the content's leading
        /// edge) is recorded in ``CollectionViewLayout/layoutError`` and the
        /// row is laid out as with ``none``. The closure runs during
        /// `prepare()` and must be a pure function of its arguments, so that
        /// a partial re-layout gives the same frames as a full one.
        case custom(@Sendable (_ row: [Rect], _ contentWidth: Double) -> [Rect])
    }
}
