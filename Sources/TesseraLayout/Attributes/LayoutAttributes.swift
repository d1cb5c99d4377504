#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where and how one element of a collection view appears: the value a
/// layout returns for a cell, a supplementary view or a decoration view
/// (UIKit's `UICollectionViewLayoutAttributes`, as a struct).
///
/// Layouts keep frames in flat storage and make attributes only for what a
/// query returns.
public struct LayoutAttributes: Sendable {
    /// The element's index path: `[section, item]` for cells, and for
    /// supplementary and decoration views whatever their layout uses
    /// (Tessera's layouts use `[section, 0]` for headers and footers).
    public var indexPath: IndexPath
    /// Cell, supplementary view or decoration view, with its kind.
    public var category: ElementCategory
    /// The frame, in content coordinates.
    public var frame: Rect
    /// The opacity, 0 (transparent) to 1 (opaque).
    public var alpha: Double
    /// A transform applied around the center.
    public var transform: Transform
    /// The stacking order; higher is in front.
    public var zIndex: Int
    /// Whether the element is hidden.
    public var isHidden: Bool
    /// Custom values by extension key; see ``LayoutAttributesExtension``.
    var extensions: [String: any LayoutAttributesExtension]

    /// Creates attributes for an element.
    public init(
        category: ElementCategory,
        indexPath: IndexPath,
        frame: Rect = .zero,
        alpha: Double = 1,
        transform: Transform = .identity,
        zIndex: Int = 0,
        isHidden: Bool = false
    ) {
        self.category = category
        self.indexPath = indexPath
        self.frame = frame
        self.alpha = alpha
        self.transform = transform
        self.zIndex = zIndex
        self.isHidden = isHidden
        self.extensions = [:]
    }

    /// Attributes for the cell at an index path.
    public static func cell(at indexPath: IndexPath, frame: Rect) -> LayoutAttributes {
        LayoutAttributes(category: .cell, indexPath: indexPath, frame: frame)
    }

    /// Attributes for a supplementary view of a kind.
    public static func supplementaryView(ofKind kind: String, at indexPath: IndexPath, frame: Rect) -> LayoutAttributes {
        LayoutAttributes(category: .supplementaryView(kind), indexPath: indexPath, frame: frame)
    }

    /// Attributes for a decoration view of a kind.
    public static func decorationView(ofKind kind: String, at indexPath: IndexPath, frame: Rect) -> LayoutAttributes {
        LayoutAttributes(category: .decorationView(kind), indexPath: indexPath, frame: frame)
    }

    /// The center of the frame; setting it moves the frame.
    public var center: Point {
        get { frame.center }
        set { frame.origin = Point(x: newValue.x - frame.size.width / 2, y: newValue.y - frame.size.height / 2) }
    }

    /// The size of the frame; setting it keeps the center, as UIKit does.
    public var size: Size {
        get { frame.size }
        set {
            let center = frame.center
            frame = Rect(x: center.x - newValue.width / 2, y: center.y - newValue.height / 2, width: newValue.width, height: newValue.height)
        }
    }

    /// The element's own coordinate space: its size at the origin.
    public var bounds: Rect { Rect(origin: .zero, size: frame.size) }

    /// The custom value of an extension type, or `nil`.
    public subscript<E: LayoutAttributesExtension>(_ type: E.Type) -> E? {
        get { extensions[E.extensionKey] as? E }
        set { extensions[E.extensionKey] = newValue }
    }

    /// The keys of the custom values present, sorted.
    ///
    /// - Complexity: O(*e* log *e*) in the number of custom values.
    public var extensionKeys: [String] { extensions.keys.sorted() }

    /// The attributes `progress` (0…1) of the way from these to `other`:
    /// frame, alpha, transform and custom values interpolate; z-index,
    /// hidden state, index path and category switch halfway.
    ///
    /// - Complexity: O(*e*) in the number of custom values.
    public func interpolated(to other: LayoutAttributes, progress: Double) -> LayoutAttributes {
        func mix(_ from: Double, _ to: Double) -> Double { from + (to - from) * progress }
        var result = progress < 0.5 ? self : other
        result.frame = Rect(
            x: mix(frame.origin.x, other.frame.origin.x), y: mix(frame.origin.y, other.frame.origin.y),
            width: mix(frame.size.width, other.frame.size.width), height: mix(frame.size.height, other.frame.size.height)
        )
        result.alpha = mix(alpha, other.alpha)
        result.transform = transform.interpolated(to: other.transform, progress: progress)
        var keys = Set(extensions.keys)
        keys.formUnion(other.extensions.keys)
        for key in keys {
            switch (extensions[key], other.extensions[key]) {
            case let (from?, to?): result.extensions[key] = from._interpolated(to: to, progress: progress)
            case let (from?, nil): result.extensions[key] = progress < 0.5 ? from : nil
            case let (nil, to?): result.extensions[key] = progress < 0.5 ? nil : to
            case (nil, nil): break
            }
        }
        return result
    }
}
