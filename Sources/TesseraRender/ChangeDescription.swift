import Foundation
import TesseraDiff
import TesseraLayout
import TesseraSQLite
import TesseraView

/// One change as the commands print it: the changeset, the update items a
/// view performs (one UIKit-safe batch, or staged batches), and optionally
/// the animation plan with a label for each of its elements.
package struct ChangeDescription: Sendable {
    /// The changeset.
    package var changeset: Changeset
    /// The batch, unless ``staged`` is given.
    package var batch: BatchUpdate?
    /// The staged batches, when asked for.
    package var staged: StagedBatchUpdate?
    /// The animation plan, when there is a layout.
    package var plan: AnimationPlan?
    /// A label per plan element (`12`, `header holidays`), in plan order.
    package var labels: [String]

    /// Creates a description from its parts.
    package init(changeset: Changeset, batch: BatchUpdate?, staged: StagedBatchUpdate?, plan: AnimationPlan?, labels: [String]) {
        self.changeset = changeset
        self.batch = batch
        self.staged = staged
        self.plan = plan
        self.labels = labels
    }

    /// Labels for a plan's elements: an item's id, or a supplementary view's
    /// kind and its section's id.
    package static func labels<S: Identifiable, I: Identifiable>(
        for plan: AnimationPlan, old: Snapshot<S, I>, new: Snapshot<S, I>
    ) -> [String] {
        plan.elements.map { element in
            if let id = element.itemID { return id }
            let sectionID: String
            if let after = element.indexPathAfter, after.count > 0, after[0] < new.numberOfSections {
                sectionID = plainText(new[section: after[0]].id)
            } else if let before = element.indexPathBefore, before.count > 0, before[0] < old.numberOfSections {
                sectionID = plainText(old[section: before[0]].id)
            } else {
                sectionID = "?"
            }
            switch element.category {
            case .cell: return "cell \(sectionID)"
            case let .supplementaryView(kind), let .decorationView(kind):
                return "\(Self.shortKind(kind)) \(sectionID)"
            }
        }
    }

    /// An id as text; database text values without their SQL quotes.
    package static func plainText(_ id: some Hashable) -> String {
        if let value = id as? DatabaseValue { return value.string ?? value.description }
        return "\(id)"
    }

    package static func shortKind(_ kind: String) -> String {
        switch kind {
        case ElementKind.sectionHeader: "header"
        case ElementKind.sectionFooter: "footer"
        default: kind
        }
    }

    // MARK: Text

    /// The counts line: `sections: 0 deleted, 1 inserted, 0 moved, 0 updated; items: …`.
    package var countsLine: String {
        let c = changeset
        return "sections: \(c.sectionDeletes.count) deleted, \(c.sectionInserts.count) inserted, \(c.sectionMoves.count) moved, \(c.sectionUpdates.count) updated; "
            + "items: \(c.itemDeletes.count) deleted, \(c.itemInserts.count) inserted, \(c.itemMoves.count) moved, \(c.itemUpdates.count) updated"
    }

    /// The readable report, each line indented by `indent`; at most
    /// `maxUpdateItems` update items are listed per batch.
    package func text(indent: String = "  ", maxUpdateItems: Int = 24) -> String {
        var lines = ["changeset: " + countsLine]
        func list(_ title: String, _ items: [UpdateItem]) {
            lines.append("\(title) (\(items.count)):")
            for item in items.prefix(maxUpdateItems) { lines.append("  " + item.description) }
            if items.count > maxUpdateItems { lines.append("  … and \(items.count - maxUpdateItems) more") }
        }
        if let staged {
            lines.append("staged batches: \(staged.steps.count)")
            for (n, step) in staged.steps.enumerated() { list("stage \(n + 1), \(step.stage.rawValue)", step.items) }
        } else if let batch {
            let passes = batch.batches
            for (n, items) in passes.enumerated() {
                list(passes.count == 1 ? "update items, \(batch.policy.rawValue)" : "update items, pass \(n + 1) of \(passes.count), \(batch.policy.rawValue)", items)
            }
        }
        if let plan { lines += planLines(plan) }
        return lines.map { indent + $0 }.joined(separator: "\n")
    }

    private func planLines(_ plan: AnimationPlan) -> [String] {
        var counts: [String] = []
        for disposition in AnimationPlan.Disposition.allCases {
            let n = plan.elements(disposition).count
            if n > 0 { counts.append("\(n) \(disposition.rawValue)") }
        }
        var lines = [
            "animation plan: \(plan.elements.count) visible elements (\(counts.isEmpty ? "none" : counts.joined(separator: ", "))), "
                + "\(Format.number(plan.duration)) s \(Format.timing(plan.timing)), content \(Format.size(plan.contentSizeBefore)) → \(Format.size(plan.contentSizeAfter)), "
                + "offset \(Format.point(plan.contentOffsetBefore)) → \(Format.point(plan.contentOffsetAfter))",
        ]
        let labelWidth = min(24, (labels.map(\.count).max() ?? 0))
        for (element, label) in zip(plan.elements, labels) {
            var line = "  " + Format.pad(element.disposition.rawValue, 9) + " " + Format.pad(label, labelWidth) + "  "
            line += Format.pad(element.indexPathBefore.map(Format.indexPath) ?? "–", 8) + " → " + Format.pad(element.indexPathAfter.map(Format.indexPath) ?? "–", 8)
            line += "  " + Format.rect(element.from.frame)
            if element.to.frame != element.from.frame { line += " → " + Format.rect(element.to.frame) }
            if element.from.alpha != element.to.alpha {
                line += "  alpha \(Format.number(element.from.alpha)) → \(Format.number(element.to.alpha))"
            }
            if element.contentChanged && element.disposition != .reload { line += "  (content changed)" }
            lines.append(line)
        }
        return lines
    }

    // MARK: JSON

    /// The report as a JSON object: `counts`, `changeset`, `batch` or
    /// `staged`, and `plan` with `labels`, each in the library's Codable
    /// form.
    package func json() throws -> JSON {
        let c = changeset
        var members: [(key: String, value: JSON)] = [
            ("counts", .object([
                ("sectionDeletes", .int(c.sectionDeletes.count)), ("sectionInserts", .int(c.sectionInserts.count)),
                ("sectionMoves", .int(c.sectionMoves.count)), ("sectionUpdates", .int(c.sectionUpdates.count)),
                ("itemDeletes", .int(c.itemDeletes.count)), ("itemInserts", .int(c.itemInserts.count)),
                ("itemMoves", .int(c.itemMoves.count)), ("itemUpdates", .int(c.itemUpdates.count)),
            ])),
            ("changeset", try JSON.encoding(c)),
        ]
        if let staged { members.append(("staged", try JSON.encoding(staged))) }
        if let batch, staged == nil { members.append(("batch", try JSON.encoding(batch))) }
        if let plan {
            members.append(("plan", try JSON.encoding(plan)))
            members.append(("labels", .array(labels.map(JSON.string))))
        }
        return .object(members)
    }
}

extension JSON {
    /// A value's `Codable` form (keys sorted), as JSON.
    package static func encoding<T: Encodable>(_ value: T) throws -> JSON {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return try JSON.parse(String(decoding: data, as: UTF8.self))
    }
}

/// Number and geometry formatting shared by the reports.
package enum Format {
    /// `12`, `12.5`, `0.33`: at most two decimals, no trailing zeros.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        // From 10^15 on a double holds no hundredths to round (and ×100
        // could overflow to infinity: 1e308 would print as inf).
        if abs(value) >= 1e15 {
            return value == value.rounded() && abs(value) < 9_007_199_254_740_992 ? String(Int64(value)) : "\(value)"
        }
        let rounded = (value * 100).rounded() / 100
        // Whole numbers print without decimals while they fit exactly.
        if rounded == rounded.rounded() && abs(rounded) < 9_007_199_254_740_992 { return String(Int64(rounded)) }
        if abs(rounded) >= 1e15 { return "\(rounded)" }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    package static func rect(_ r: Rect) -> String {
        "(\(number(r.origin.x)), \(number(r.origin.y)), \(number(r.size.width))×\(number(r.size.height)))"
    }

    package static func size(_ s: Size) -> String { "\(number(s.width))×\(number(s.height))" }

    package static func point(_ p: Point) -> String { "(\(number(p.x)), \(number(p.y)))" }

    package static func indexPath(_ path: IndexPath) -> String { "[" + path.map(String.init).joined(separator: ", ") + "]" }

    package static func timing(_ timing: AnimationTiming) -> String {
        switch timing {
        case .linear: "linear"
        case .easeInOut: "ease-in-out"
        case let .spring(damping, response): "spring (damping \(number(damping)), response \(number(response)) s)"
        }
    }

    package static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
