/// A time a collection view cannot take for a change: the view was left as
/// it was.
public enum AnimationClockError: Error, Hashable, Sendable {
    /// The time is NaN or infinite.
    case nonFiniteTime(Double)
    /// The time is earlier than that of the last change made at a time.
    case timeWentBackwards(time: Double, lastTime: Double)
}

extension AnimationClockError: CustomStringConvertible {
    /// What was wrong with the time.
    public var description: String {
        switch self {
        case let .nonFiniteTime(time):
            return "the time of a change must be finite, not \(time)"
        case let .timeWentBackwards(time, lastTime):
            return "the time of a change must not go backwards: \(time) is before the last change's \(lastTime)"
        }
    }
}
