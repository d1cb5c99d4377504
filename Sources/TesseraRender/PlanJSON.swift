import Foundation
import TesseraLayout
import TesseraView

/// The one writer of plan JSON: the live list's messages and the plan pages
/// of `tessera diff`, `tessera render` and `tessera demo` write plans, and
/// the elements in them, with it, into one format (the live list's
/// protocol article documents it: a plan's timing, sizes and offsets, and
/// per element its frames, alphas, z-indexes, transforms, hidden ends and
/// disposition).
///
/// It writes text by hand (no `JSONEncoder`): numbers as integers when
/// they are integral, strings escaped as ``JSON`` escapes them. A message
/// costs what it writes.
package struct PlanJSON {
    /// The text so far.
    package var text = ""

    /// An empty text with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        text.reserveCapacity(capacity)
    }

    // MARK: Scalars

    /// Appends JSON text as it is.
    package mutating func raw(_ part: String) { text += part }

    /// Appends a string, escaped.
    package mutating func string(_ value: String) { JSON.writeString(value, to: &text) }

    /// Appends an integer.
    package mutating func int(_ value: Int) { text += String(value) }

    /// Appends a number: an integer when it is integral, 0 when it is not
    /// finite.
    package mutating func number(_ value: Double) {
        guard value.isFinite else { text += "0"; return }
        if value == value.rounded(), abs(value) < 1e15 {
            text += String(Int64(value))
        } else {
            text += String(value)
        }
    }

    /// Appends `true` or `false`.
    package mutating func bool(_ value: Bool) { text += value ? "true" : "false" }

    /// Appends `[x, y, width, height]`.
    package mutating func rect(_ rect: Rect) {
        text += "["
        number(rect.origin.x); text += ","
        number(rect.origin.y); text += ","
        number(rect.size.width); text += ","
        number(rect.size.height)
        text += "]"
    }

    /// Appends `[width, height]`.
    package mutating func size(_ size: Size) {
        text += "["
        number(size.width); text += ","
        number(size.height)
        text += "]"
    }

    /// Appends `[x, y]`.
    package mutating func point(_ point: Point) {
        text += "["
        number(point.x); text += ","
        number(point.y)
        text += "]"
    }

    /// Appends `[section, item]`.
    package mutating func path(_ path: IndexPath) {
        text += "["
        int(path.count > 0 ? path[0] : 0); text += ","
        int(path.count > 1 ? path[1] : 0)
        text += "]"
    }

    /// Appends `[a, b, c, d, tx, ty]`.
    package mutating func transform(_ transform: Transform) {
        text += "["
        number(transform.a); text += ","
        number(transform.b); text += ","
        number(transform.c); text += ","
        number(transform.d); text += ","
        number(transform.tx); text += ","
        number(transform.ty)
        text += "]"
    }

    // MARK: Plans

    /// Writes a plan's own members (without braces, the first without a
    /// comma before it): `duration`, `timing`, `contentSizeBefore`,
    /// `contentSizeAfter`, `contentOffsetBefore` and `contentOffsetAfter`.
    package mutating func planMembers(_ plan: AnimationPlan) {
        text += "\"duration\":"; number(plan.duration)
        text += ",\"timing\":"; string(Self.timingName(plan.timing))
        text += ",\"contentSizeBefore\":"; size(plan.contentSizeBefore)
        text += ",\"contentSizeAfter\":"; size(plan.contentSizeAfter)
        text += ",\"contentOffsetBefore\":"; point(plan.contentOffsetBefore)
        text += ",\"contentOffsetAfter\":"; point(plan.contentOffsetAfter)
    }

    /// Writes how a plan element moves (members after others, each with a
    /// comma before it): `from` (its frame before; its frame after is the
    /// element's `frame`), `fromAlpha` and `toAlpha`, `fromZ` and `toZ`,
    /// `disposition`; then, only when they hold, `fromHidden` and
    /// `toHidden` (true: hidden at that end, drawn with alpha 0; it
    /// switches halfway, as z does), `fromTransform` and `toTransform`
    /// (when either end is not the identity) and `contentChanged`.
    package mutating func elementMotion(_ element: AnimationPlan.Element) {
        text += ",\"from\":"; rect(element.from.frame)
        text += ",\"fromAlpha\":"; number(element.from.alpha)
        text += ",\"toAlpha\":"; number(element.to.alpha)
        text += ",\"fromZ\":"; int(element.from.zIndex)
        text += ",\"toZ\":"; int(element.to.zIndex)
        text += ",\"disposition\":\""; text += Self.disposition(element.disposition); text += "\""
        if element.from.isHidden { text += ",\"fromHidden\":true" }
        if element.to.isHidden { text += ",\"toHidden\":true" }
        if element.from.transform != .identity || element.to.transform != .identity {
            text += ",\"fromTransform\":"; transform(element.from.transform)
            text += ",\"toTransform\":"; transform(element.to.transform)
        }
        if element.contentChanged { text += ",\"contentChanged\":true" }
    }

    /// The format's name of a disposition.
    package static func disposition(_ disposition: AnimationPlan.Disposition) -> String {
        switch disposition {
        case .insert: "inserted"
        case .delete: "deleted"
        case .move: "moved"
        case .reload: "reloaded"
        case .shift: "shifted"
        case .unchanged: "unchanged"
        }
    }

    /// The format's name of a timing curve.
    package static func timingName(_ timing: AnimationTiming) -> String {
        switch timing {
        case .linear: "linear"
        case .easeInOut: "easeInOut"
        case .spring: "spring"
        }
    }
}
