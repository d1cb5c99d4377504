public import TesseraLayout

/// An animated plan and the time it started: what a renderer plays, and
/// what a collection view composes the next change with while it plays.
///
/// Times are in seconds on the caller's clock (any origin); the plan plays
/// from ``startTime`` until ``endTime``.
public struct PlayingPlan: Hashable, Codable, Sendable {
    /// The plan.
    public var plan: AnimationPlan
    /// When it started, in seconds.
    public var startTime: Double

    /// Creates a playing plan.
    public init(plan: AnimationPlan, startTime: Double) {
        self.plan = plan
        self.startTime = startTime
    }

    /// When it ends: ``startTime`` plus the plan's duration (a spring's too:
    /// a spring is cut off at its plan's duration, where it lands exactly).
    public var endTime: Double { startTime + plan.duration }

    /// Whether it plays at `time`: from its start (included) to its end
    /// (excluded). A plan with no duration never plays.
    public func isPlaying(at time: Double) -> Bool {
        plan.duration > 0 && time >= startTime && time < endTime
    }

    /// The progress (0…1) of the plan at `time`: 0 before it starts, 1
    /// from its end on (and always 1 for a plan with no duration).
    public func progress(at time: Double) -> Double {
        guard plan.duration > 0 else { return 1 }
        return Swift.min(Swift.max((time - startTime) / plan.duration, 0), 1)
    }

    /// Every element's attributes at `time`, in the plan's element order:
    /// `plan.attributes(at: progress(at: time))`.
    ///
    /// - Complexity: O(*e*) for *e* elements.
    public func attributes(at time: Double) -> [LayoutAttributes] {
        plan.attributes(at: progress(at: time))
    }

    /// The content offset at `time`: `plan.contentOffset(at: progress(at: time))`.
    public func contentOffset(at time: Double) -> Point {
        plan.contentOffset(at: progress(at: time))
    }
}
