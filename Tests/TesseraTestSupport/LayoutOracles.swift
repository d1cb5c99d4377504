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
/// - a rect query equals a brute-force filter: over the whole content and
///   over each of `rects`, the query returns each element of `elements`
///   whose frame intersects the rect, once, and nothing else (in any order).
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
    for rect in [whole] + rects {
        let actual = rect == whole ? queried : layout.layoutAttributesForElements(in: rect)
        let expected = all.filter { $0.frame.intersects(rect) }
        var byKey: [ElementKey: LayoutAttributes] = [:]
        for attributes in actual where byKey.updateValue(attributes, forKey: ElementKey(attributes)) != nil {
            violations.append("a query over \(rect) returns \(ElementKey(attributes)) twice")
        }
        let wanted = Dictionary(expected.map { (ElementKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        if byKey != wanted {
            let missing = wanted.filter { byKey[$0.key] != $0.value }.map(\.value)
            let extra = byKey.filter { wanted[$0.key] != $0.value }.map(\.value)
            violations.append("a query over \(rect) misses \(missing.prefix(3)) and returns \(extra.prefix(3)) besides")
        }
    }
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

/// Random query rects in and around `content`: anywhere, sometimes empty,
/// sometimes exactly touching an element's edge, sometimes the visible
/// area.
public func randomQueryRects(count: Int, content: Size, elements: [LayoutAttributes], using generator: inout SplitMix64) -> [Rect] {
    (0..<count).map { _ -> Rect in
        let width = Swift.max(content.width, 1)
        let height = Swift.max(content.height, 1)
        let kind = Int.random(in: 0..<5, using: &generator)
        if kind == 0 {
            return Rect(x: Double.random(in: -20...width, using: &generator).rounded(), y: Double.random(in: -20...height, using: &generator).rounded(), width: 0, height: 40)
        }
        if kind == 1, let element = elements.randomElement(using: &generator) {
            // A rect whose top edge touches the element's bottom edge.
            return Rect(x: element.frame.minX, y: element.frame.maxY, width: 50, height: 50)
        }
        return Rect(
            x: Double.random(in: -40...width + 40, using: &generator).rounded(), y: Double.random(in: -40...height + 40, using: &generator).rounded(),
            width: Double.random(in: 1...Swift.max(2, width / 2), using: &generator).rounded(),
            height: Double.random(in: 1...Swift.max(2, height / 2), using: &generator).rounded()
        )
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
