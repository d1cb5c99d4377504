extension LayoutAttributes: Equatable {
    /// Equal when every property and every custom value are equal.
    ///
    /// - Complexity: O(*e*) in the number of custom values.
    public static func == (lhs: LayoutAttributes, rhs: LayoutAttributes) -> Bool {
        guard lhs.indexPath == rhs.indexPath, lhs.category == rhs.category, lhs.frame == rhs.frame,
              lhs.alpha == rhs.alpha, lhs.transform == rhs.transform, lhs.zIndex == rhs.zIndex,
              lhs.isHidden == rhs.isHidden, lhs.extensions.count == rhs.extensions.count
        else { return false }
        for (key, value) in lhs.extensions {
            guard let other = rhs.extensions[key], value._isEqual(to: other) else { return false }
        }
        return true
    }
}

extension LayoutAttributes: Hashable {
    /// Hashes every property and every custom value.
    ///
    /// - Complexity: O(*e* log *e*) in the number of custom values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(indexPath)
        hasher.combine(category)
        hasher.combine(frame)
        hasher.combine(alpha)
        hasher.combine(transform)
        hasher.combine(zIndex)
        hasher.combine(isHidden)
        for (key, value) in extensions.sorted(by: { $0.key < $1.key }) {
            hasher.combine(key)
            hasher.combine(AnyHashable(value))
        }
    }
}

extension LayoutAttributes: CustomStringConvertible {
    /// The category, index path and frame, and whatever differs from the
    /// defaults.
    ///
    /// - Complexity: O(*e* log *e*) in the number of custom values.
    public var description: String {
        var parts = ["\(category)", "\(Array(indexPath))", "\(frame)"]
        if alpha != 1 { parts.append("alpha \(alpha)") }
        if !transform.isIdentity { parts.append("transform \(transform)") }
        if zIndex != 0 { parts.append("z \(zIndex)") }
        if isHidden { parts.append("hidden") }
        for (key, value) in extensions.sorted(by: { $0.key < $1.key }) { parts.append("\(key): \(value)") }
        return parts.joined(separator: " ")
    }
}
