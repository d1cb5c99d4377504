import TesseraLayout

/// The layouts a client may ask for, with the sizes the page draws.
package enum ServeLayoutKind: String, Sendable, CaseIterable {
    /// A grid: 120×150 items (a 120×120 thumbnail and a title line), 8
    /// points apart and inset, pinned 40-point headers.
    case flow
    /// A list: 56-point rows under 40-point headers.
    case list
    /// Columns: one per 220 points of width (at least one), 180-point items
    /// under 40-point headers.
    case column

    /// The most columns ``column`` lays out.
    package static let maximumColumnCount = 64

    /// A new layout of this kind for a viewport `width` wide.
    ///
    /// - Parameters:
    ///   - width: The viewport's width (it sets the column count).
    ///   - headers: Whether sections have headers (the list has a section
    ///     column).
    package func makeLayout(width: Double, headers: Bool) -> CollectionViewLayout {
        let headerHeight = headers ? 40.0 : 0
        switch self {
        case .flow:
            let layout = FlowLayout()
            layout.itemSize = Size(width: 120, height: 150)
            layout.minimumInteritemSpacing = 8
            layout.minimumLineSpacing = 8
            layout.sectionInset = EdgeInsets(all: 8)
            layout.headerReferenceSize = Size(width: 0, height: headerHeight)
            layout.sectionHeadersPinToVisibleBounds = headers
            return layout
        case .list:
            let layout = ListLayout()
            layout.itemHeight = 56
            layout.headerHeight = headerHeight
            return layout
        case .column:
            let layout = ColumnLayout()
            layout.columnCount = Self.columnCount(width: width)
            layout.itemHeight = 180
            layout.headerHeight = headerHeight
            return layout
        }
    }

    /// The column count of ``column`` for a viewport `width` wide.
    package static func columnCount(width: Double) -> Int {
        guard width.isFinite else { return 1 }
        return min(maximumColumnCount, max(1, Int(width / 220)))
    }
}
