import Foundation
import TesseraLayout

/// Every element of a prepared layout: each item, header and footer through
/// the per-element methods, then whatever else a query over all of space
/// returns (other supplementary kinds, decoration views), without repeats.
public func everyElement(of layout: CollectionViewLayout, itemCounts: [Int]) -> [LayoutAttributes] {
    var result = allElements(of: layout, itemCounts: itemCounts)
    var seen = Set(result.map { ElementKey(category: $0.category, indexPath: $0.indexPath) })
    let content = layout.collectionViewContentSize
    let everywhere = Rect(x: -1e9, y: -1e9, width: 2e9 + content.width, height: 2e9 + content.height)
    for attributes in layout.layoutAttributesForElements(in: everywhere) {
        if seen.insert(ElementKey(category: attributes.category, indexPath: attributes.indexPath)).inserted {
            result.append(attributes)
        }
    }
    return result
}

/// An element's identity: its category and index path.
public struct ElementKey: Hashable, Sendable, CustomStringConvertible {
    public var category: ElementCategory
    public var indexPath: IndexPath

    public init(category: ElementCategory, indexPath: IndexPath) {
        self.category = category
        self.indexPath = indexPath
    }

    public init(_ attributes: LayoutAttributes) {
        self.init(category: attributes.category, indexPath: attributes.indexPath)
    }

    public var description: String { "\(category) \(Array(indexPath))" }
}

/// The elements of a prepared layout whose frames leave the content
/// rectangle `(0, 0, collectionViewContentSize)` by more than a rounding:
/// what a collection view could never scroll to. Frames are in content
/// coordinates, so the content inset (outside the content) plays no part.
public func elementsOutsideContent(of layout: CollectionViewLayout, itemCounts: [Int]) -> [LayoutAttributes] {
    let content = layout.collectionViewContentSize
    return everyElement(of: layout, itemCounts: itemCounts).filter { !isWithinContent($0.frame, content: content) }
}

/// What a prepared layout breaks of two rules, one line per breach (empty
/// when it keeps both), at the content offset its environment has now:
/// - the content encloses every frame: each of `elements` (by default
///   ``everyElement(of:itemCounts:)``: every item, header and footer, and
///   whatever else a query over all of space returns) and each element a
///   query over the whole content returns lies within
///   `(0, 0, collectionViewContentSize)`, give or take a rounding;
/// - a rect query equals a brute-force filter over the whole content and
///   over each of `rects` (see ``rectQueryViolations(of:elements:rects:inElementOrder:)``).
public func contentAndQueryViolations(
    of layout: CollectionViewLayout,
    itemCounts: [Int],
    elements: [LayoutAttributes]? = nil,
    rects: [Rect] = []
) -> [String] {
    let all = elements ?? everyElement(of: layout, itemCounts: itemCounts)
    let content = layout.collectionViewContentSize
    let whole = Rect(origin: .zero, size: content)
    var violations: [String] = []
    if !(content.width.isFinite && content.height.isFinite && content.width >= 0 && content.height >= 0) {
        violations.append("content size \(content)")
    }
    let queried = layout.layoutAttributesForElements(in: whole)
    for attributes in all + queried where !isWithinContent(attributes.frame, content: content) {
        violations.append("outside the content \(content): \(attributes)")
    }
    violations += rectQueryViolations(of: layout, elements: all, rects: [whole] + rects)
    return violations
}

/// Whether a frame lies within `(0, 0, content)`, give or take a rounding.
public func isWithinContent(_ frame: Rect, content: Size) -> Bool {
    let tolerance = 1e-6
    return frame.minX >= -tolerance && frame.minY >= -tolerance
        && frame.maxX <= content.width + tolerance && frame.maxY <= content.height + tolerance
}

/// Content offsets a collection view of `size` and `contentInset` allows
/// for `content`, to check pinned and sticky headers at: the first, the
/// last, and `random` more between them (whole points).
public func allowedContentOffsets(content: Size, size: Size, contentInset inset: EdgeInsets, random: Int = 2, using generator: inout SplitMix64) -> [Point] {
    let minX = -inset.left
    let minY = -inset.top
    let maxX = Swift.max(minX, content.width + inset.right - size.width)
    let maxY = Swift.max(minY, content.height + inset.bottom - size.height)
    var offsets = [Point(x: minX, y: minY), Point(x: maxX, y: maxY)]
    for _ in 0..<random {
        offsets.append(Point(
            x: Swift.min(maxX, Double.random(in: minX...maxX, using: &generator).rounded()),
            y: Swift.min(maxY, Double.random(in: minY...maxY, using: &generator).rounded())
        ))
    }
    return offsets
}

/// What a prepared layout breaks of the rect-query rule, one line per
/// breach (empty when it keeps it):
/// - over each of `rects`, the query returns each element of `elements`
///   whose frame intersects the rect, once, as it is, and nothing else; in
///   the order of `elements` too when `inElementOrder` is set;
/// - each element whose frame has extent (its far edges lie past its near
///   ones) is found, as it is, by a query over its own frame.
///
/// `elements` is the brute-force side: every element of the layout, made
/// one by one (``allElements(of:itemCounts:)`` or
/// ``everyElement(of:itemCounts:)``).
public func rectQueryViolations(of layout: CollectionViewLayout, elements: [LayoutAttributes], rects: [Rect], inElementOrder: Bool = false) -> [String] {
    var violations: [String] = []
    for rect in rects {
        let actual = layout.layoutAttributesForElements(in: rect)
        let expected = elements.filter { $0.frame.intersects(rect) }
        var byKey: [ElementKey: LayoutAttributes] = [:]
        for attributes in actual where byKey.updateValue(attributes, forKey: ElementKey(attributes)) != nil {
            violations.append("a query over \(rect) returns \(ElementKey(attributes)) twice")
        }
        let wanted = Dictionary(expected.map { (ElementKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        if byKey != wanted {
            let missing = wanted.filter { byKey[$0.key] != $0.value }.map(\.value)
            let extra = byKey.filter { wanted[$0.key] != $0.value }.map(\.value)
            violations.append("a query over \(rect) misses \(missing.prefix(3)) and returns \(extra.prefix(3)) besides")
        } else if inElementOrder, actual != expected {
            violations.append("a query over \(rect) returns the right elements in another order than the layout's: \(actual.prefix(4).map(ElementKey.init))")
        }
    }
    // A frame thinner than the spacing of doubles where it lies (a width of
    // 1e-300 at x = 499) has no extent: it intersects nothing, itself
    // included, so only frames with extent must find themselves.
    for attributes in elements where attributes.frame.maxX > attributes.frame.minX && attributes.frame.maxY > attributes.frame.minY {
        let found = layout.layoutAttributesForElements(in: attributes.frame).first { ElementKey($0) == ElementKey(attributes) }
        if found != attributes {
            violations.append("a query over its own frame finds \(String(describing: found)) for \(attributes)")
        }
    }
    return violations
}

/// Random query rects in and around `content`, in whole points, of every
/// shape the rect-query rule must hold for: anywhere and of any size;
/// small; empty (no width or no height); touching an element's far edge (its
/// bottom or its right edge exactly); a thin strip across the whole
/// content; wholly past the content's end.
public func randomQueryRects(count: Int, content: Size, elements: [LayoutAttributes], using generator: inout SplitMix64) -> [Rect] {
    (0..<count).map { _ -> Rect in
        let width = Swift.max(content.width, 1)
        let height = Swift.max(content.height, 1)
        let x = Double.random(in: -40...width + 40, using: &generator).rounded()
        let y = Double.random(in: -40...height + 40, using: &generator).rounded()
        switch Int.random(in: 0..<7, using: &generator) {
        case 0:
            let length = Double.random(in: 1...Swift.max(2, Swift.min(width, height)), using: &generator).rounded()
            return Bool.random(using: &generator)
                ? Rect(x: x, y: y, width: 0, height: length)
                : Rect(x: x, y: y, width: length, height: 0)
        case 1 where !elements.isEmpty:
            let frame = elements.randomElement(using: &generator)!.frame
            return Bool.random(using: &generator)
                ? Rect(x: frame.minX, y: frame.maxY, width: 50, height: 50)
                : Rect(x: frame.maxX, y: frame.minY, width: 50, height: 50)
        case 2:
            let thickness = Double.random(in: 1...8, using: &generator).rounded()
            return Bool.random(using: &generator)
                ? Rect(x: -10, y: y, width: width + 20, height: thickness)
                : Rect(x: x, y: -10, width: thickness, height: height + 20)
        case 3:
            return Bool.random(using: &generator)
                ? Rect(x: -100, y: height + 10, width: width + 200, height: 500)
                : Rect(x: width + 10, y: -100, width: 500, height: height + 200)
        case 4:
            return Rect(x: x, y: y, width: Double.random(in: 1...60, using: &generator).rounded(), height: Double.random(in: 1...60, using: &generator).rounded())
        default:
            return Rect(
                x: x, y: y,
                width: Double.random(in: 1...Swift.max(2, width * 0.75), using: &generator).rounded(),
                height: Double.random(in: 1...Swift.max(2, height * 0.75), using: &generator).rounded()
            )
        }
    }
}

/// What a prepared layout answers, for comparing two layouts: its content
/// size, every element, and what a query over the content returns.
public struct LayoutState: Equatable, CustomStringConvertible {
    public var contentSize: Size
    public var elements: [LayoutAttributes]
    public var queried: [LayoutAttributes]

    public init(of layout: CollectionViewLayout, itemCounts: [Int]) {
        contentSize = layout.collectionViewContentSize
        elements = everyElement(of: layout, itemCounts: itemCounts)
        queried = layout.layoutAttributesForElements(in: Rect(origin: .zero, size: contentSize))
    }

    /// The content size and the first element that differs from `other`.
    public func difference(from other: LayoutState) -> String {
        if contentSize != other.contentSize { return "content size \(contentSize), expected \(other.contentSize)" }
        if elements.count != other.elements.count { return "\(elements.count) elements, expected \(other.elements.count)" }
        if let index = elements.indices.first(where: { elements[$0] != other.elements[$0] }) {
            return "\(elements[index]), expected \(other.elements[index])"
        }
        if queried != other.queried { return "a query over the content returns \(queried.count) elements, expected \(other.queried.count)" }
        return "none"
    }

    public var description: String { "content \(contentSize), \(elements.count) elements" }
}
