import TesseraDiff
import TesseraLayout
import TesseraResults
import TesseraView

/// A message the server sends (see the protocol article), typed; ``text``
/// writes it with ``ServeEncoder``, the protocol's one encoder.
package enum ServeReply {
    /// `snapshot`: a client's list after its `hello`.
    case snapshot(Snapshot)
    /// `elements`: what a viewport shows, after a `viewport`.
    case elements(Elements)
    /// `plan`: one change (or several merged) for one viewport.
    case plan(Plan)
    /// `plan` with `"unchanged": true`: a change that leaves everything the
    /// client shows as it is.
    case unchangedPlan(UnchangedPlan)
    /// `done`: an edit committed as change `seq` (or changed nothing
    /// visible, at the current `seq`).
    case done(request: Int64, seq: Int)
    /// `error`: a message refused.
    case error(ServeMessageError)

    /// The list a message is written from.
    package typealias ListResult = FetchedResult<ServeRecord>

    /// A `snapshot` message.
    package struct Snapshot {
        /// How the list names its sections.
        package var sectionName: ServeSectionNaming
        /// The state the snapshot is of.
        package var seq: Int
        /// The list's content size in the client's layout.
        package var contentSize: Size
        /// The client's viewport.
        package var viewport: Rect
        /// The list.
        package var result: ListResult
        /// The elements the viewport shows.
        package var elements: [LayoutAttributes]
        /// Whether the message lists every item's id.
        package var ids: Bool
        /// The edits the client may make (`editable` when there is one).
        package var edits: ServeEdits
        /// The fingerprint of the list (`state`), which the client names
        /// when it reconnects; not written when `nil`.
        package var state: ServeStateFingerprint?

        /// Creates a snapshot message.
        package init(
            seq: Int, contentSize: Size, viewport: Rect, result: ListResult, elements: [LayoutAttributes], ids: Bool, edits: ServeEdits,
            sectionName: @escaping ServeSectionNaming
        ) {
            self.sectionName = sectionName
            self.seq = seq
            self.contentSize = contentSize
            self.viewport = viewport
            self.result = result
            self.elements = elements
            self.ids = ids
            self.edits = edits
        }
    }

    /// An `elements` message.
    package struct Elements {
        /// How the list names its sections.
        package var sectionName: ServeSectionNaming
        /// The state the elements are of.
        package var seq: Int
        /// The list's content size in the client's layout.
        package var contentSize: Size
        /// The client's viewport.
        package var viewport: Rect
        /// The list.
        package var result: ListResult
        /// The elements the viewport shows.
        package var elements: [LayoutAttributes]

        /// Creates an elements message.
        package init(seq: Int, contentSize: Size, viewport: Rect, result: ListResult, elements: [LayoutAttributes], sectionName: @escaping ServeSectionNaming) {
            self.sectionName = sectionName
            self.seq = seq
            self.contentSize = contentSize
            self.viewport = viewport
            self.result = result
            self.elements = elements
        }
    }

    /// A `plan` message.
    package struct Plan {
        /// How the list names its sections.
        package var sectionName: ServeSectionNaming
        /// The animation plan for the client's viewport.
        package var plan: AnimationPlan
        /// The change, over `old`'s and `new`'s indexes.
        package var changeset: Changeset
        /// The list before.
        package var old: ListResult
        /// The list after.
        package var new: ListResult
        /// The state the client was at.
        package var fromSeq: Int
        /// The state the plan brings it to.
        package var seq: Int
        /// The elements the viewport shows after the plan.
        package var settled: [LayoutAttributes]
        /// Whether the message carries the changeset (the client wants ids).
        package var wantsIDs: Bool
        /// The new list's `sections`, written once per change
        /// (``ServeEncoder/sections(_:sectionName:)``) and shared by every plan of it.
        package var sections: String
        /// The fingerprint of the list after (`state`); not written when
        /// `nil`.
        package var state: ServeStateFingerprint?
        /// For the plan that answers a `hello` with a known `resume.state`
        /// (`"resumed": true`): the edits the client may make on this
        /// connection, as a snapshot would say; `nil` for any other plan.
        package var resumedEdits: ServeEdits?

        /// Creates a plan message.
        package init(
            plan: AnimationPlan, changeset: Changeset, old: ListResult, new: ListResult, fromSeq: Int, seq: Int,
            settled: [LayoutAttributes], wantsIDs: Bool, sections: String, sectionName: @escaping ServeSectionNaming
        ) {
            self.sectionName = sectionName
            self.plan = plan
            self.changeset = changeset
            self.old = old
            self.new = new
            self.fromSeq = fromSeq
            self.seq = seq
            self.settled = settled
            self.wantsIDs = wantsIDs
            self.sections = sections
        }
    }

    /// A `plan` message of a change that leaves everything the client
    /// shows as it is: no elements, no `settled` and no `sections` (the
    /// client keeps what it shows, and the counts are the same).
    package struct UnchangedPlan {
        /// How the list names its sections.
        package var sectionName: ServeSectionNaming
        /// The state the client was at.
        package var fromSeq: Int
        /// The state the plan brings it to.
        package var seq: Int
        /// Whether the change would have been animated.
        package var animated: Bool
        /// The changeset and the list after it, for a client that wants
        /// ids; without them the text is the same for every client going
        /// from `fromSeq` to `seq`.
        package var changeset: (Changeset, new: ListResult)?
        /// The fingerprint of the list after (`state`); not written when
        /// `nil`.
        package var state: ServeStateFingerprint?

        /// Creates an unchanged plan message.
        package init(fromSeq: Int, seq: Int, animated: Bool, changeset: (Changeset, new: ListResult)?, sectionName: @escaping ServeSectionNaming) {
            self.sectionName = sectionName
            self.fromSeq = fromSeq
            self.seq = seq
            self.animated = animated
            self.changeset = changeset
        }
    }

    /// The message's JSON text.
    ///
    /// - Complexity: O(what it writes): the elements, the sections, and
    ///   the ids or the changeset when asked for; the list is read record
    ///   by record, never copied.
    package var text: String {
        switch self {
        case .snapshot(let message): Self.text(message)
        case .elements(let message): Self.text(message)
        case .plan(let message): Self.text(message)
        case .unchangedPlan(let message): Self.text(message)
        case let .done(request, seq): "{\"type\":\"done\",\"request\":\(request),\"seq\":\(seq)}"
        case .error(let error): Self.text(error)
        }
    }

    private static func text(_ message: Snapshot) -> String {
        var out = ServeEncoder(capacity: 4096)
        out.raw("{\"type\":\"snapshot\",\"seq\":"); out.int(message.seq)
        writeState(message.state, to: &out)
        out.raw(",\"contentSize\":"); out.size(message.contentSize)
        out.raw(",\"viewport\":"); out.rect(message.viewport)
        out.raw(",\"sections\":"); out.sections(message.result, sectionName: message.sectionName)
        out.raw(",\"elements\":"); out.elements(message.elements, in: message.result, sectionName: message.sectionName)
        if message.ids { out.raw(",\"ids\":"); out.ids(message.result) }
        writeEdits(message.edits, to: &out)
        out.raw("}")
        return out.text
    }

    /// Writes `,"editable":…,"edits":[…]`.
    private static func writeEdits(_ edits: ServeEdits, to out: inout ServeEncoder) {
        out.raw(",\"editable\":"); out.bool(!edits.isEmpty)
        out.raw(",\"edits\":[")
        var first = true
        for (edit, name) in ServeEdits.named where edits.contains(edit) {
            if !first { out.raw(",") }
            first = false
            out.string(name)
        }
        out.raw("]")
    }

    /// Writes `,"state":"…"` when there is a state.
    private static func writeState(_ state: ServeStateFingerprint?, to out: inout ServeEncoder) {
        guard let state else { return }
        out.raw(",\"state\":\""); out.raw(state.description); out.raw("\"")
    }

    private static func text(_ message: Elements) -> String {
        var out = ServeEncoder(capacity: 4096)
        out.raw("{\"type\":\"elements\",\"seq\":"); out.int(message.seq)
        out.raw(",\"contentSize\":"); out.size(message.contentSize)
        out.raw(",\"viewport\":"); out.rect(message.viewport)
        out.raw(",\"elements\":"); out.elements(message.elements, in: message.result, sectionName: message.sectionName)
        out.raw("}")
        return out.text
    }

    private static func text(_ message: Plan) -> String {
        let plan = message.plan
        var out = ServeEncoder(capacity: 4096)
        out.raw("{\"type\":\"plan\",\"fromSeq\":"); out.int(message.fromSeq)
        out.raw(",\"seq\":"); out.int(message.seq)
        writeState(message.state, to: &out)
        if let edits = message.resumedEdits {
            out.raw(",\"resumed\":true")
            writeEdits(edits, to: &out)
        }
        out.raw(",\"animated\":"); out.bool(plan.duration > 0)
        out.raw(","); out.planMembers(plan)
        var body = ServeEncoder(capacity: 4096)
        let moves = body.planElements(plan, old: message.old, new: message.new, sectionName: message.sectionName)
        out.raw(",\"moves\":[")
        for (i, key) in moves.enumerated() {
            if i > 0 { out.raw(",") }
            out.string(key)
        }
        out.raw("],\"elements\":"); out.raw(body.text)
        out.raw(",\"settled\":"); out.elements(message.settled, in: message.new, sectionName: message.sectionName)
        out.raw(",\"sections\":"); out.raw(message.sections)
        if message.wantsIDs { out.raw(",\"changeset\":"); out.changeset(message.changeset, new: message.new, sectionName: message.sectionName) }
        out.raw("}")
        return out.text
    }

    private static func text(_ message: UnchangedPlan) -> String {
        var out = ServeEncoder(capacity: 160)
        out.raw("{\"type\":\"plan\",\"fromSeq\":"); out.int(message.fromSeq)
        out.raw(",\"seq\":"); out.int(message.seq)
        writeState(message.state, to: &out)
        out.raw(",\"animated\":"); out.bool(message.animated)
        out.raw(",\"duration\":0,\"moves\":[],\"elements\":[],\"unchanged\":true")
        if let (changeset, new) = message.changeset {
            out.raw(",\"changeset\":"); out.changeset(changeset, new: new, sectionName: message.sectionName)
        }
        out.raw("}")
        return out.text
    }

    private static func text(_ error: ServeMessageError) -> String {
        var out = ServeEncoder()
        out.raw("{\"type\":\"error\"")
        if let request = error.request { out.raw(",\"request\":"); out.raw(String(request)) }
        if !error.missingIDs.isEmpty {
            out.raw(",\"ids\":[")
            for (i, id) in error.missingIDs.enumerated() {
                if i > 0 { out.raw(",") }
                out.string(id)
            }
            out.raw("]")
        }
        out.raw(",\"code\":"); out.string(error.code.rawValue)
        out.raw(",\"message\":"); out.string(error.message)
        out.raw("}")
        return out.text
    }
}
