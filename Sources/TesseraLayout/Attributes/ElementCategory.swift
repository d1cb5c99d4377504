/// What kind of element a set of layout attributes describes.
public enum ElementCategory: Hashable, Codable, Sendable {
    /// An item (a cell).
    case cell
    /// A supplementary view of a kind, such as a section header.
    case supplementaryView(String)
    /// A decoration view of a kind registered with the layout.
    case decorationView(String)

    /// The kind of a supplementary or decoration view; `nil` for a cell.
    public var kind: String? {
        switch self {
        case .cell: return nil
        case let .supplementaryView(kind), let .decorationView(kind): return kind
        }
    }
}

/// The supplementary view kinds Tessera's layouts use, as UIKit names them.
public enum ElementKind {
    /// A section header (`UICollectionView.elementKindSectionHeader`).
    public static let sectionHeader = "UICollectionElementKindSectionHeader"
    /// A section footer (`UICollectionView.elementKindSectionFooter`).
    public static let sectionFooter = "UICollectionElementKindSectionFooter"
}
