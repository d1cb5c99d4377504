#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How an animation's progress maps to how far elements have gone.
public enum AnimationTiming: Hashable, Codable, Sendable {
    /// Constant speed.
    case linear
    /// Slow at both ends (a cubic ease-in-out).
    case easeInOut
    /// A spring with a damping ratio (1: no overshoot; below 1: bounces) and
    /// a response (the period of the undamped spring, in seconds), as
    /// SwiftUI's `spring(response:dampingFraction:)`.
    case spring(dampingRatio: Double, response: Double)

    /// The fraction of the way elements have gone at `progress` (0…1) of an
    /// animation lasting `duration` seconds: 0 at the start, exactly 1 at
    /// the end, and above 1 during a spring's overshoot.
    public func fraction(at progress: Double, duration: Double) -> Double {
        let p = Swift.min(Swift.max(progress, 0), 1)
        if p >= 1 { return 1 }
        switch self {
        case .linear:
            return p
        case .easeInOut:
            return p < 0.5 ? 4 * p * p * p : 1 - pow(-2 * p + 2, 3) / 2
        case let .spring(dampingRatio, response):
            guard response > 0, duration > 0 else { return p }
            let zeta = Swift.max(dampingRatio, 0)
            let omega = 2 * Double.pi / response
            let t = p * duration
            if zeta < 1 {
                let damped = omega * (1 - zeta * zeta).squareRoot()
                return 1 - exp(-zeta * omega * t) * (cos(damped * t) + zeta * omega / damped * sin(damped * t))
            }
            if zeta == 1 {
                return 1 - exp(-omega * t) * (1 + omega * t)
            }
            let root = (zeta * zeta - 1).squareRoot()
            let r1 = -omega * (zeta - root)
            let r2 = -omega * (zeta + root)
            return 1 - (r2 * exp(r1 * t) - r1 * exp(r2 * t)) / (r2 - r1)
        }
    }
}
