import TesseraLayout

extension EdgeInsets {
    /// Insets whose four sides are random whole numbers in `range`, drawn
    /// top, left, bottom, right.
    public static func random(in range: ClosedRange<Int>, using generator: inout SplitMix64) -> EdgeInsets {
        EdgeInsets(
            top: Double(Int.random(in: range, using: &generator)), left: Double(Int.random(in: range, using: &generator)),
            bottom: Double(Int.random(in: range, using: &generator)), right: Double(Int.random(in: range, using: &generator))
        )
    }
}

/// Takes a built-in layout's delegate away.
public func detachDelegate(from layout: CollectionViewLayout) {
    switch layout {
    case let layout as FlowLayout: layout.delegate = nil
    case let layout as StyledFlowLayout: layout.delegate = nil
    case let layout as ListLayout: layout.delegate = nil
    case let layout as HorizontalListLayout: layout.delegate = nil
    case let layout as ListStackLayout: layout.delegate = nil
    case let layout as ColumnLayout: layout.delegate = nil
    default: break
    }
}
