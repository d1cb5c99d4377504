#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CodingUserInfoKey {
    /// The ``LayoutAttributesExtension`` types a decoder may meet in
    /// ``LayoutAttributes``: set `decoder.userInfo[.layoutAttributesExtensions]`
    /// to an array of them.
    public static let layoutAttributesExtensions = CodingUserInfoKey(rawValue: "tessera.layoutAttributesExtensions")!
}

extension LayoutAttributes: Codable {
    private enum CodingKeys: String, CodingKey {
        case indexPath, category, frame, alpha, transform, zIndex, isHidden, extensions
    }

    private struct ExtensionKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes every property; custom values go under `extensions`, by key,
    /// in key order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Array(indexPath), forKey: .indexPath)
        try container.encode(category, forKey: .category)
        try container.encode(frame, forKey: .frame)
        try container.encode(alpha, forKey: .alpha)
        try container.encode(transform, forKey: .transform)
        try container.encode(zIndex, forKey: .zIndex)
        try container.encode(isHidden, forKey: .isHidden)
        guard !extensions.isEmpty else { return }
        var values = container.nestedContainer(keyedBy: ExtensionKey.self, forKey: .extensions)
        for (key, value) in extensions.sorted(by: { $0.key < $1.key }) {
            try values.encode(value, forKey: ExtensionKey(stringValue: key))
        }
    }

    /// Decodes what ``encode(to:)`` writes. Custom values decode through the
    /// types listed in `userInfo[.layoutAttributesExtensions]`; a key with no
    /// such type is an error naming the key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            category: try container.decode(ElementCategory.self, forKey: .category),
            indexPath: IndexPath(indexes: try container.decode([Int].self, forKey: .indexPath)),
            frame: try container.decode(Rect.self, forKey: .frame),
            alpha: try container.decode(Double.self, forKey: .alpha),
            transform: try container.decode(Transform.self, forKey: .transform),
            zIndex: try container.decode(Int.self, forKey: .zIndex),
            isHidden: try container.decode(Bool.self, forKey: .isHidden)
        )
        guard container.contains(.extensions) else { return }
        let values = try container.nestedContainer(keyedBy: ExtensionKey.self, forKey: .extensions)
        let types = decoder.userInfo[.layoutAttributesExtensions] as? [any LayoutAttributesExtension.Type] ?? []
        for key in values.allKeys {
            guard let type = types.first(where: { $0.extensionKey == key.stringValue }) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: values,
                    debugDescription: "unknown layout attributes extension '\(key.stringValue)': list its type in userInfo[.layoutAttributesExtensions]"
                )
            }
            extensions[key.stringValue] = try Self.decode(type, from: values, forKey: key)
        }
    }

    private static func decode<E: LayoutAttributesExtension>(
        _ type: E.Type,
        from container: KeyedDecodingContainer<ExtensionKey>,
        forKey key: ExtensionKey
    ) throws -> any LayoutAttributesExtension {
        try container.decode(E.self, forKey: key)
    }
}
