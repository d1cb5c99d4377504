import Foundation
import TesseraDiff
import TesseraLayout
import TesseraView
import TesseraRender

/// `tessera diff`: two snapshot files → changeset, batch or stages, and
/// optionally the animation plan and its page.
package struct DiffRun: Sendable {
    /// The snapshot before.
    package var oldPath: String
    /// The snapshot after.
    package var newPath: String
    /// Staged batches instead of one UIKit-safe batch.
    package var staged: Bool
    /// What one batch does with an element that moves and changes.
    package var policy: MoveAndUpdatePolicy
    /// The layout to compute the animation plan with, if any.
    package var layout: LayoutChoice?
    /// Where to write the plan's page, if anywhere (needs a layout).
    package var htmlPath: String?
    /// JSON output instead of text.
    package var json: Bool

    /// Creates a run.
    package init(oldPath: String, newPath: String, staged: Bool = false, policy: MoveAndUpdatePolicy = .moveThenReload,
                layout: LayoutChoice? = nil, htmlPath: String? = nil, json: Bool = false) {
        self.oldPath = oldPath
        self.newPath = newPath
        self.staged = staged
        self.policy = policy
        self.layout = layout
        self.htmlPath = htmlPath
        self.json = json
    }

    /// Runs the diff and returns what to print.
    ///
    /// - Throws: ``CommandError`` for a missing or unreadable file, invalid
    ///   JSON (with line and column), a malformed snapshot or duplicate ids.
    package func run() throws(CommandError) -> String {
        let old = try SnapshotDocument.load(path: oldPath)
        let new = try SnapshotDocument.load(path: newPath)
        let changeset: Changeset
        do {
            changeset = try diff(from: old, to: new)
        } catch {
            throw CommandError("\(error)", exitCode: CommandError.inputExitCode)
        }
        var description = ChangeDescription(changeset: changeset, batch: nil, staged: nil, plan: nil, labels: [])
        if staged {
            do {
                description.staged = try StagedBatchUpdate(changeset, sectionCountBefore: old.numberOfSections)
            } catch {
                throw CommandError("cannot stage the change: \(error)")
            }
        } else {
            description.batch = BatchUpdate(changeset, policy: policy)
        }
        let choice = layout ?? (htmlPath != nil ? LayoutChoice(kind: .flow) : nil)
        if let choice {
            try choice.validate()
            let view = CollectionView(layout: choice.makeLayout(), size: choice.size)
            let source = DiffableDataSource<DocumentSection, DocumentItem>(collectionView: view)
            do {
                try source.apply(old, animated: false)
                let plan = try source.apply(new)
                description.plan = plan
                description.labels = ChangeDescription.labels(for: plan, old: old, new: new)
            } catch {
                throw CommandError("cannot lay out the change: \(error)")
            }
            if let htmlPath, let plan = description.plan {
                let entry = PlanPage.Entry(title: "\(oldPath) → \(newPath)", plan: plan, labels: description.labels, viewport: choice.size)
                try InputFile.write(PlanPage.html(title: "tessera diff: \(oldPath) → \(newPath)", entries: [entry]), to: htmlPath)
            }
        }
        if json {
            do {
                return try description.json().compactText
            } catch {
                throw CommandError("cannot encode the result: \(error)")
            }
        }
        var text = "\(oldPath) → \(newPath)\n" + description.text()
        if let htmlPath { text += "\n  wrote \(htmlPath)" }
        return text
    }
}

/// `tessera render`: a saved animation plan → its page.
package struct RenderRun: Sendable {
    /// The plan file: an `AnimationPlan` in its JSON form, an array of
    /// them, or `tessera diff --json` output (its `plan`, with `labels`).
    package var planPath: String
    /// Where to write the page.
    package var htmlPath: String
    /// The viewport's width, when given; otherwise the content's width.
    package var width: Double?
    /// The viewport's height, when given; otherwise the content's height,
    /// at most 844.
    package var height: Double?

    /// Creates a run.
    package init(planPath: String, htmlPath: String, width: Double? = nil, height: Double? = nil) {
        self.planPath = planPath
        self.htmlPath = htmlPath
        self.width = width
        self.height = height
    }

    /// Writes the page and returns what to print.
    ///
    /// - Throws: ``CommandError`` for a width or height out of range (as
    ///   ``LayoutChoice/validate(width:height:)`` says), a missing file,
    ///   invalid JSON (line and column), JSON that is not a plan (with the
    ///   path to the bad part), or plans with nothing to draw.
    package func run() throws(CommandError) -> String {
        try LayoutChoice.validate(width: width, height: height)
        let json = try InputFile.json(at: planPath)
        var entries: [PlanPage.Entry] = []
        func decodePlan(_ value: JSON, _ labels: JSON?, _ title: String) throws(CommandError) {
            let plan: AnimationPlan
            do {
                plan = try JSONDecoder().decode(AnimationPlan.self, from: Data(value.compactText.utf8))
            } catch let error as DecodingError {
                throw CommandError("\(planPath): not an animation plan: \(Self.describe(error))", exitCode: CommandError.inputExitCode)
            } catch {
                throw CommandError("\(planPath): not an animation plan: \(error)", exitCode: CommandError.inputExitCode)
            }
            var names: [String] = plan.elements.enumerated().map { $0.element.itemID ?? "\(ChangeDescription.shortKind($0.element.category.kind ?? "cell")) \($0.element.to.indexPath.first ?? 0)" }
            if case let .array(given)? = labels, given.count == names.count {
                names = given.map { if case let .string(s) = $0 { s } else { $0.compactText } }
            }
            let guessed = PlanPage.viewport(guessedFrom: plan)
            let viewport = Size(width: width ?? guessed.width, height: height ?? guessed.height)
            entries.append(PlanPage.Entry(title: title, plan: plan, labels: names, viewport: viewport))
        }
        switch json {
        case let .array(values):
            for (i, value) in values.enumerated() { try decodePlan(value["plan"] ?? value, value["labels"], "plan \(i + 1)") }
        default:
            if let plan = json["plan"] { try decodePlan(plan, json["labels"], planPath) } else { try decodePlan(json, nil, planPath) }
        }
        guard !entries.isEmpty else {
            throw CommandError("\(planPath): no plan to draw (an empty array)", exitCode: CommandError.inputExitCode)
        }
        guard entries.contains(where: { !$0.plan.elements.isEmpty }) else {
            let plans = entries.count == 1 ? "the plan is empty" : "its \(entries.count) plans are empty"
            throw CommandError("\(planPath): \(plans): no element to draw", exitCode: CommandError.inputExitCode)
        }
        try InputFile.write(PlanPage.html(title: "tessera render: \(planPath)", entries: entries), to: htmlPath)
        return "wrote \(htmlPath): \(entries.count) plan\(entries.count == 1 ? "" : "s"), \(entries.map(\.plan.elements.count).reduce(0, +)) elements"
    }

    /// `elements[3].from: missing "frame"`.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            var text = ""
            for key in context.codingPath {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "top level" : text
        }
        switch error {
        case let .keyNotFound(key, context):
            return "\(path(context)): missing \"\(key.stringValue)\""
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
