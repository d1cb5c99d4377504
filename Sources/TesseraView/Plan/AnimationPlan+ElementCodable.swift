#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraLayout

extension AnimationPlan.Element {
    enum CodingKeys: String, CodingKey {
        case category, indexPathBefore, indexPathAfter, itemID, from, to, disposition, contentChanged, view
        case isSelected, isHighlighted
    }

    /// Decodes an element; ``isSelected`` and ``isHighlighted`` are `false`
    /// when absent (plans encoded before they existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            category: try container.decode(ElementCategory.self, forKey: .category),
            indexPathBefore: try container.decodeIfPresent(IndexPath.self, forKey: .indexPathBefore),
            indexPathAfter: try container.decodeIfPresent(IndexPath.self, forKey: .indexPathAfter),
            itemID: try container.decodeIfPresent(String.self, forKey: .itemID),
            from: try container.decode(LayoutAttributes.self, forKey: .from),
            to: try container.decode(LayoutAttributes.self, forKey: .to),
            disposition: try container.decode(AnimationPlan.Disposition.self, forKey: .disposition),
            contentChanged: try container.decode(Bool.self, forKey: .contentChanged),
            view: try container.decode(ViewIdentity.self, forKey: .view),
            isSelected: try container.decodeIfPresent(Bool.self, forKey: .isSelected) ?? false,
            isHighlighted: try container.decodeIfPresent(Bool.self, forKey: .isHighlighted) ?? false
        )
    }

    /// Encodes an element as before selection existed, adding
    /// ``isSelected`` and ``isHighlighted`` only when `true`: a plan with
    /// nothing selected encodes byte for byte as it always did.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(category, forKey: .category)
        try container.encodeIfPresent(indexPathBefore, forKey: .indexPathBefore)
        try container.encodeIfPresent(indexPathAfter, forKey: .indexPathAfter)
        try container.encodeIfPresent(itemID, forKey: .itemID)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(disposition, forKey: .disposition)
        try container.encode(contentChanged, forKey: .contentChanged)
        try container.encode(view, forKey: .view)
        if isSelected { try container.encode(true, forKey: .isSelected) }
        if isHighlighted { try container.encode(true, forKey: .isHighlighted) }
    }
}
