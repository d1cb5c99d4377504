/// The one rule every layout checks the numbers it reads against — its
/// properties and its delegate's values — so that a value one layout
/// rejects, every layout rejects.
///
/// A length (a size, an inset, a spacing, a header's length) must be finite,
/// not negative and at most ``maximumLength``; an offset (a distance that
/// may point either way, such as where sticky headers stop) finite and at
/// most ``maximumLength`` either way; a scale finite, above zero and at most
/// ``maximumLength``. A layout records the first value that breaks the rule
/// in ``CollectionViewLayout/layoutError``, naming what and where, and uses
/// a neutral value (zero, or a scale of 1) in its place: it never traps and
/// never lays out with the bad value.
///
/// A layout of your own can use the same rule through
/// ``CollectionViewLayout/checkedLength(_:_:)``.
public enum LayoutValue {
    /// The longest length a layout accepts, in points: 10¹², far beyond any
    /// screen, and small enough that a million of them add up to a finite
    /// number.
    public static let maximumLength = 1e12

    /// Whether a length is one a layout can use: finite, not negative and
    /// at most ``maximumLength``.
    @inlinable
    public static func isValidLength(_ value: Double) -> Bool {
        value >= 0 && value <= maximumLength
    }

    /// Whether an offset is one a layout can use: finite and at most
    /// ``maximumLength`` either way.
    @inlinable
    public static func isValidOffset(_ value: Double) -> Bool {
        value >= -maximumLength && value <= maximumLength
    }

    /// Whether a scale is one a layout can use: finite, above zero and at
    /// most ``maximumLength``.
    @inlinable
    public static func isValidScale(_ value: Double) -> Bool {
        value > 0 && value <= maximumLength
    }
}

extension CollectionViewLayout {
    /// `value` when it is a valid length (``LayoutValue/isValidLength(_:)``);
    /// otherwise records a ``LayoutError`` naming `subject` (the first one
    /// is kept) and returns 0.
    ///
    /// ```swift
    /// let height = checkedLength(hourHeight, .property("hourHeight"))
    /// ```
    public func checkedLength(_ value: Double, _ subject: @autoclosure () -> LayoutError.Subject) -> Double {
        if LayoutValue.isValidLength(value) { return value }
        recordError(LayoutError(subject: subject(), value: "\(value)"))
        return 0
    }
}
