#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A two-dimensional affine transform: `x' = a·x + c·y + tx`,
/// `y' = b·x + d·y + ty`, as Core Graphics' `CGAffineTransform`.
public struct Transform: Hashable, Codable, Sendable {
    /// The x scale (and rotation) coefficient.
    public var a: Double
    /// The y shear (and rotation) coefficient from x.
    public var b: Double
    /// The x shear (and rotation) coefficient from y.
    public var c: Double
    /// The y scale (and rotation) coefficient.
    public var d: Double
    /// The x translation.
    public var tx: Double
    /// The y translation.
    public var ty: Double

    /// Creates a transform from its six coefficients.
    @inlinable
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// The transform that changes nothing.
    public static let identity = Transform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A scale by `sx` horizontally and `sy` vertically.
    @inlinable
    public static func scale(_ sx: Double, _ sy: Double) -> Transform {
        Transform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// A translation by `dx`, `dy`.
    @inlinable
    public static func translation(_ dx: Double, _ dy: Double) -> Transform {
        Transform(a: 1, b: 0, c: 0, d: 1, tx: dx, ty: dy)
    }

    /// A rotation by `angle` radians (clockwise on screen, where y grows
    /// downward).
    @inlinable
    public static func rotation(_ angle: Double) -> Transform {
        let cosine = cos(angle)
        let sine = sin(angle)
        return Transform(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
    }

    /// Whether this is the identity.
    @inlinable
    public var isIdentity: Bool { self == .identity }

    /// This transform followed by `other`.
    @inlinable
    public func concatenating(_ other: Transform) -> Transform {
        Transform(
            a: a * other.a + b * other.c,
            b: a * other.b + b * other.d,
            c: c * other.a + d * other.c,
            d: c * other.b + d * other.d,
            tx: tx * other.a + ty * other.c + other.tx,
            ty: tx * other.b + ty * other.d + other.ty
        )
    }

    /// Applies the transform to a point.
    @inlinable
    public func apply(to point: Point) -> Point {
        Point(x: a * point.x + c * point.y + tx, y: b * point.x + d * point.y + ty)
    }

    /// The transform `progress` of the way from this one to `other`, by
    /// coefficient (which interpolates scales and translations exactly, and
    /// rotations well for small angles).
    @inlinable
    public func interpolated(to other: Transform, progress: Double) -> Transform {
        func mix(_ from: Double, _ to: Double) -> Double { from + (to - from) * progress }
        return Transform(
            a: mix(a, other.a), b: mix(b, other.b), c: mix(c, other.c),
            d: mix(d, other.d), tx: mix(tx, other.tx), ty: mix(ty, other.ty)
        )
    }
}
