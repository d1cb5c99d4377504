import TesseraLayout
import TesseraTestSupport

/// `layout`, configured and prepared over a static environment of the given
/// size (320 × 480 unless told) and counts; the environment is returned too, since the layout holds
/// it weakly.
func prepared<Layout: CollectionViewLayout>(
    _ layout: Layout,
    width: Double = 320,
    height: Double = 480,
    itemCounts: [Int],
    contentInset: EdgeInsets = .zero,
    configure: (Layout) -> Void = { _ in }
) -> (layout: Layout, environment: StaticLayoutEnvironment) {
    let environment = StaticLayoutEnvironment(size: Size(width: width, height: height), itemCounts: itemCounts, contentInset: contentInset)
    layout.collectionView = environment
    configure(layout)
    layout.prepare()
    return (layout, environment)
}

/// A rectangle from its origin and size, for the expected frames of the
/// worked examples.
func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Rect { Rect(x: x, y: y, width: w, height: h) }

/// The values a layout refuses wherever a length or a ratio is asked for:
/// negative, not a number, infinite either way.
let badNumbers: [Double] = [-1, .nan, .infinity, -.infinity]

/// Whether every element of a prepared layout has a finite frame of no
/// negative size, and its content size is finite.
func allFinite(_ layout: CollectionViewLayout, _ itemCounts: [Int]) -> Bool {
    allElements(of: layout, itemCounts: itemCounts).allSatisfy { $0.frame.isFinite && $0.frame.size.width >= 0 && $0.frame.size.height >= 0 }
        && layout.collectionViewContentSize.width.isFinite && layout.collectionViewContentSize.height.isFinite
}
