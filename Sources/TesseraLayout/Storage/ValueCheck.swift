/// Checks the sizes, insets, spacings, offsets and scales a layout reads
/// during one `prepare()` by ``LayoutValue``'s rule: a bad value is reported
/// with where it came from and replaced by a neutral one (zero, or a scale
/// of 1), so no frame is ever NaN or infinite.
struct _ValueCheck {
    /// Receives each bad value, with its section when it has one.
    let report: (LayoutError, Int?) -> Void

    func length(_ value: Double, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> Double {
        if LayoutValue.isValidLength(value) { return value }
        report(LayoutError(subject: subject(), value: "\(value)"), section)
        return 0
    }

    func size(_ size: Size, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> Size {
        if size.isValid { return size }
        report(LayoutError(subject: subject(), value: "\(size)"), section)
        return .zero
    }

    func insets(_ insets: EdgeInsets, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> EdgeInsets {
        if insets.isValid { return insets }
        report(LayoutError(subject: subject(), value: "top \(insets.top), left \(insets.left), bottom \(insets.bottom), right \(insets.right)"), section)
        return .zero
    }

    /// An offset: any sign, within ``LayoutValue/maximumLength``; a bad
    /// one is reported and read as zero.
    func offset(_ value: Double, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> Double {
        if LayoutValue.isValidOffset(value) { return value }
        report(LayoutError(subject: subject(), value: "\(value)"), section)
        return 0
    }

    /// A scale: a bad one is reported and read as 1.
    func scale(_ value: Double, section: Int?, _ subject: @autoclosure () -> LayoutError.Subject) -> Double {
        if LayoutValue.isValidScale(value) { return value }
        report(LayoutError(subject: subject(), value: "\(value)"), section)
        return 1
    }

    /// An item count from the environment: a negative one is reported and
    /// read as zero.
    func count(_ value: Int, section: Int) -> Int {
        if value >= 0 { return value }
        report(LayoutError(subject: .itemCount(section: section), value: "\(value)"), section)
        return 0
    }
}
