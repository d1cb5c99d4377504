/// Values a custom layout attaches to its attributes, as UIKit layouts do
/// with a `layoutAttributesClass` subclass.
///
/// An extension takes part in the attributes' equality and in their
/// interpolation during animations:
///
/// ```swift
/// struct Tilt: LayoutAttributesExtension {
///     var angle: Double
///     func interpolated(to other: Tilt, progress: Double) -> Tilt {
///         Tilt(angle: angle + (other.angle - angle) * progress)
///     }
/// }
/// attributes[Tilt.self] = Tilt(angle: 0.2)
/// ```
public protocol LayoutAttributesExtension: Hashable, Codable, Sendable {
    /// The name the extension is stored and encoded under; by default the
    /// type's fully qualified name (with its module), so two modules' types
    /// of the same name do not collide.
    static var extensionKey: String { get }

    /// The value `progress` (0…1) of the way from this value to `other`. By
    /// default the value switches halfway.
    func interpolated(to other: Self, progress: Double) -> Self
}

extension LayoutAttributesExtension {
    /// The type's fully qualified name.
    public static var extensionKey: String { String(reflecting: Self.self) }

    /// This value before the halfway point, `other` from it on.
    public func interpolated(to other: Self, progress: Double) -> Self {
        progress < 0.5 ? self : other
    }

    /// Whether `other` is a value of this type equal to this one.
    func _isEqual(to other: any LayoutAttributesExtension) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }

    /// Interpolates toward `other` when it has this type; otherwise switches
    /// halfway.
    func _interpolated(to other: any LayoutAttributesExtension, progress: Double) -> any LayoutAttributesExtension {
        guard let other = other as? Self else { return progress < 0.5 ? self : other }
        return interpolated(to: other, progress: progress)
    }
}
