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
    let tolerance = 1e-6
    return everyElement(of: layout, itemCounts: itemCounts).filter { attributes in
        let frame = attributes.frame
        return !(frame.minX >= -tolerance && frame.minY >= -tolerance
            && frame.maxX <= content.width + tolerance && frame.maxY <= content.height + tolerance)
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
