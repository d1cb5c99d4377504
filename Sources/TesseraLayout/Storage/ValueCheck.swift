/// Checks the sizes, insets and spacings a layout reads during one
/// `prepare()`: a bad value (negative, NaN, infinite, or beyond
/// ``maximumLength``, where sums of them could overflow) is reported with
/// where it came from and replaced by zero, so no frame is ever NaN or
/// infinite.
struct _ValueCheck {
    /// The longest length a layout accepts, in points: far beyond any
    /// screen, and small enough that a million of them add up to a finite
    /// number.
    static let maximumLength = 1e12

    static func isValid(_ value: Double) -> Bool {
        value.isFinite && value >= 0 && value <= maximumLength
    }

    /// Receives each bad value, with its section when it has one.
    let report: (LayoutError, Int?) -> Void

    func length(_ value: Double, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> Double {
        if Self.isValid(value) { return value }
        report(LayoutError(subject: subject(), value: "\(value)"), section)
        return 0
    }

    func size(_ size: Size, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> Size {
        if Self.isValid(size.width) && Self.isValid(size.height) { return size }
        report(LayoutError(subject: subject(), value: "\(size)"), section)
        return .zero
    }

    func insets(_ insets: EdgeInsets, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> EdgeInsets {
        if Self.isValid(insets.top) && Self.isValid(insets.left) && Self.isValid(insets.bottom) && Self.isValid(insets.right) { return insets }
        report(LayoutError(subject: subject(), value: "top \(insets.top), left \(insets.left), bottom \(insets.bottom), right \(insets.right)"), section)
        return .zero
    }

    /// An item count from the environment: a negative one is reported and
    /// read as zero.
    func count(_ value: Int, section: Int) -> Int {
        if value >= 0 { return value }
        report(LayoutError(subject: .itemCount(section: section), value: "\(value)"), section)
        return 0
    }
}
