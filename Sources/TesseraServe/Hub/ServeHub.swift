import Foundation
import Logging
import NIOCore
import TesseraDiff
import TesseraLayout
import TesseraResults
import TesseraSQLite
import TesseraView

/// The live list's hub: one results controller over the configured table,
/// and one collection view per connected client, each with the client's
/// layout and viewport.
///
/// Every report of the controller (a commit that changed the list, from a
/// client's edit, another connection or another process) becomes change
/// `seq`, and each client that is up to date gets a `plan` made by its own
/// view's `performBatchUpdates`. A client whose outbox is full is behind: it
/// gets nothing until the outbox drains, then one plan from the state it
/// has to the current one. Messages and their errors are those of the
/// protocol article (Protocol.md).
///
/// ```swift
/// let hub = try ServeHub(configuration: configuration)
/// await hub.start()
/// let (client, outbox) = await hub.connect(canEdit: true)
/// await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,800]}"#, from: client)
/// let snapshot = await outbox.next()
/// ```
///
/// The controller's home is the hub: it fetches, follows commits and
/// reports on the actor.
package actor ServeHub {
    /// The configuration it was made with.
    package let configuration: ServeConfiguration
    /// The table as checked against the database.
    package let schema: ServeSchema
    /// The hub's connection: the controller reads it and edits write it.
    let connection: Connection
    /// The list, homed on the hub.
    let controller: FetchedResultsController<ServeRecord>
    /// Where the controller's reports wait until they are sent.
    let collector = ServeReportCollector()
    /// Whether the controller was fetched on the actor (its home).
    private var isHome = false
    /// The number of reports so far: the state the current result is.
    package private(set) var seq = 0
    /// The connected clients.
    var sessions: [ServeClientID: ServeSession] = [:]
    /// The last `unchanged` plan written for clients without ids, shared by
    /// every client that goes from the same state to the same one.
    var unchangedPlanCache: (fromSeq: Int, seq: Int, animated: Bool, text: String, frame: ByteBuffer)?
    /// Where ``reply(to:_:)`` puts the frames for attached channels while a
    /// change is sent to every client; `nil` between changes (each reply is
    /// written at once).
    private var activeBatch: ServeWriteBatch?
    /// The batch of ``activeBatch``, kept for its storage.
    private let writeBatch = ServeWriteBatch()
    /// The number of the next client.
    private var nextClient = 1
    /// The polling task of ``start()``.
    private var following: Task<Void, Never>?
    /// What the hub has done, for the metrics endpoint.
    package private(set) var metrics = ServeMetrics()
    /// Whether the last poll failed (logged once until one succeeds).
    private var pollFailing = false
    /// Where the hub logs (``ServeConfiguration/logger``).
    var logger: Logger { configuration.logger }

    /// Opens the database, checks the table and columns, and fetches the
    /// list.
    ///
    /// - Throws: ``ServeError`` for a missing or unreadable file, a table
    ///   or column that does not exist, a poll interval that is not
    ///   positive, an outbox capacity below 1, or a fetch that fails.
    package init(configuration: ServeConfiguration) throws(ServeError) {
        let path = configuration.databasePath
        guard configuration.pollInterval > .zero else {
            throw ServeError("poll interval \(configuration.pollInterval): it must be positive")
        }
        guard configuration.outboxCapacity >= 1 else {
            throw ServeError("outbox capacity \(configuration.outboxCapacity): at least 1 message must be able to wait")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw ServeError("\(path): no such database file") }
        let connection: Connection
        do {
            // The file keeps its journal mode (WAL lets readers and the
            // writer of other processes go on at once; the file decides).
            connection = try Connection(path: path, mode: .readWrite, busyTimeout: 5, journalModeWAL: false)
        } catch {
            throw ServeError("\(path): \(error.message)")
        }
        let schema = try connection.withDatabase { db throws(ServeError) in try ServeSchema(configuration, database: db) }
        let controller: FetchedResultsController<ServeRecord>
        do {
            controller = try FetchedResultsController<ServeRecord>(connection: connection, request: schema.request)
            // Checks that the list can be read; the hub fetches again on
            // the actor, which becomes the controller's home.
            try ServeRecord.$tableColumns.withValue(schema.tableColumns) {
                try controller.performFetch(isolation: nil)
            }
        } catch {
            throw ServeError("\(path): table \(schema.table): \(error)")
        }
        self.configuration = configuration
        self.schema = schema
        self.connection = connection
        self.controller = controller
    }

    /// The number of connected clients.
    package var clientCount: Int { sessions.count }

    /// The current list: the controller's result itself (a copy shares its
    /// records), never a snapshot of it.
    var current: FetchedResult<ServeRecord> { controller.result }

    /// How the controller made its last report: patched row by row, or
    /// fetched again and diffed; `nil` before the first commit.
    var lastUpdateMethod: FetchedResultsController<ServeRecord>.UpdateMethod? { controller.lastUpdateMethod }

    /// Fetches on the actor the first time it runs there, so that the
    /// controller reports here.
    func becomeHome() {
        guard !isHome else { return }
        isHome = true
        controller.delegate = collector
        readingRecords {
            do {
                try controller.performFetch()
            } catch {
                // The result of the fetch in `init` stays.
            }
        }
        collector.reports.removeAll()
    }

    // MARK: Following

    /// Begins following other processes' commits: every
    /// ``ServeConfiguration/pollInterval``, `PRAGMA data_version` is read
    /// and a change is reported to every client. Calling it again does
    /// nothing.
    package func start() {
        becomeHome()
        guard following == nil else { return }
        logger.info("following the table", metadata: ["table": "\(schema.table)", "database": "\(configuration.databasePath)", "rows": "\(current.count)"])
        let interval = configuration.pollInterval
        following = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.poll()
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Stops following and closes every client's outbox (the clients are
    /// disconnected).
    package func stop() {
        if following != nil { logger.info("stopped following; closing every client", metadata: ["clients": "\(sessions.count)"]) }
        following?.cancel()
        following = nil
        for session in sessions.values { session.outbox.close() }
        sessions.removeAll()
    }

    /// Reads `PRAGMA data_version` once and sends the change other
    /// connections made, if any.
    ///
    /// - Complexity: O(1) when nothing changed; otherwise a re-fetch of the
    ///   table (O(*n* log *n*)) and, per up-to-date client, its view's batch
    ///   update (O(*m* + *v* log *k*), see
    ///   ``TesseraView/CollectionView/performBatchUpdates(_:animated:)-(Changeset,_)``).
    package func poll() {
        becomeHome()
        let failure = readingRecords { () -> (any Error)? in
            do {
                try controller.checkForExternalChanges()
                return nil
            } catch {
                // The controller keeps its last result; the next poll tries again.
                return error
            }
        }
        if let failure, !pollFailing {
            logger.error("cannot read the table's changes; the list keeps its last state and tries again", metadata: ["error": "\(failure)"])
        } else if failure == nil, pollFailing {
            logger.notice("reading the table's changes again")
        }
        pollFailing = failure != nil
        broadcastReports(editor: nil)
    }

    /// Runs `body` (which may make the controller read rows) with the
    /// columns the records of the schema's request read bound.
    func readingRecords<T>(_ body: () -> T) -> T {
        ServeRecord.$tableColumns.withValue(schema.tableColumns, operation: body)
    }

    // MARK: Clients

    /// Connects a client; it sends `hello` next. Its outbox holds
    /// ``ServeConfiguration/outboxCapacity`` messages before it is behind.
    ///
    /// - Parameter canEdit: Whether its edits are allowed (otherwise they
    ///   get `forbidden`).
    /// - Returns: Its id and the outbox its messages wait in.
    package func connect(canEdit: Bool) -> (ServeClientID, ClientOutbox) {
        becomeHome()
        let id = ServeClientID(nextClient)
        nextClient += 1
        let outbox = ClientOutbox(capacity: configuration.outboxCapacity) { [weak self] in
            Task { await self?.catchUp(id) }
        }
        sessions[id] = ServeSession(id: id, outbox: outbox, canEdit: canEdit)
        metrics.connections += 1
        logger.debug("client connected", metadata: ["client": "\(id.value)", "editable": "\(canEdit)", "clients": "\(sessions.count)"])
        return (id, outbox)
    }

    /// Disconnects a client: its outbox closes and its view is released.
    package func disconnect(_ client: ServeClientID) {
        guard let session = sessions.removeValue(forKey: client) else { return }
        session.outbox.close()
        logger.debug("client disconnected", metadata: ["client": "\(client.value)", "clients": "\(sessions.count)"])
    }

    /// Handles one text frame from a client: every reply, change and error
    /// goes to the outboxes. A client that is not connected is ignored.
    ///
    /// - Complexity: O(*t*) to parse *t* characters; `hello` lays out the
    ///   client's view (O(*n*)); `viewport` queries it (O(log *n* + *v*));
    ///   an edit costs its transaction plus what ``poll()`` costs for the
    ///   change it makes.
    package func receive(_ text: String, from client: ServeClientID) {
        becomeHome()
        guard let session = sessions[client] else { return }
        let message: ServeMessage
        do {
            message = try ServeMessage.parse(text)
        } catch {
            reply(to: session, Self.errorMessage(error))
            return
        }
        switch message {
        case let .hello(layout, viewport, ids):
            guard !session.isReady else {
                reply(to: session, Self.errorMessage(ServeMessageError(.malformed, "hello was already sent on this connection")))
                return
            }
            session.wantsIDs = ids
            session.start(layout: layout, viewport: viewport, result: current, seq: seq, headers: schema.sectionColumn != nil)
            reply(to: session, snapshotMessage(for: session))
        case let .viewport(viewport, layout):
            guard session.isReady else {
                reply(to: session, Self.errorMessage(ServeMessageError(.notReady, "send hello before viewport")))
                return
            }
            session.setViewport(viewport, layout: layout, headers: schema.sectionColumn != nil)
            reply(to: session, elementsMessage(for: session))
        default:
            perform(message, from: session)
        }
    }

    /// Puts a reply in the client's outbox; a client closed for letting
    /// too many pile up is disconnected.
    func reply(to session: ServeSession, _ text: String, frame: ByteBuffer? = nil) {
        if !session.outbox.push(text, frame: frame, batch: activeBatch) {
            metrics.clientsDropped += 1
            logger.warning("client closed: its replies piled up past the outbox's bound", metadata: ["client": "\(session.id.value)", "capacity": "\(configuration.outboxCapacity)"])
            disconnect(session.id)
        }
    }

    /// Runs `body` with the replies it makes to attached channels grouped
    /// into one write task per event loop, handed over when it returns.
    private func batchingWrites(_ body: () -> Void) {
        guard activeBatch == nil else { return body() }
        activeBatch = writeBatch
        body()
        activeBatch = nil
        writeBatch.flush()
    }

    // MARK: Changes

    /// Sends the reports the controller made since the last call, one
    /// change each, to every client that is up to date.
    ///
    /// - Parameter editor: The client whose edit made them, and whether it
    ///   sees them animated.
    /// - Complexity: per report and up-to-date client, one batch update of
    ///   its view and one plan message.
    func broadcastReports(editor: (id: ServeClientID, animated: Bool)?) {
        guard !collector.reports.isEmpty else { return }
        let reports = collector.reports
        collector.reports.removeAll()
        batchingWrites { sendEveryClient(reports, editor: editor) }
    }

    /// Sends each report, as the next change, to every client that is up
    /// to date.
    private func sendEveryClient(_ reports: [ChangeReport<ServeRecord>], editor: (id: ServeClientID, animated: Bool)?) {
        for report in reports {
            let start = ContinuousClock.now
            seq += 1
            metrics.changes += 1
            let updatedFrames = ServeUpdatedFrames(report.changeset)
            for session in sessions.values where session.isReady && !session.isBehind {
                guard session.outbox.hasRoomOrMarkBehind() else {
                    session.isBehind = !session.outbox.isClosed
                    if session.isBehind {
                        metrics.clientsBehind += 1
                        logger.debug("client behind: it gets one merged plan once its outbox drains", metadata: ["client": "\(session.id.value)", "seq": "\(seq)"])
                    }
                    continue
                }
                let animated = editor.map { $0.id != session.id || $0.animated } ?? true
                send(report.changeset, old: report.old, new: report.new, to: session, animated: animated, updatedFrames: updatedFrames)
            }
            metrics.changeSeconds.observe(since: start)
        }
    }

    /// Sends a client that was behind, once its outbox drained, one plan
    /// from the state it has to the current one, then the replies it
    /// waited for.
    ///
    /// - Complexity: O(*n* + *s*) for the diff (of the two results as
    ///   snapshots), plus one batch update.
    func catchUp(_ client: ServeClientID) {
        guard let session = sessions[client], session.isBehind else { return }
        guard session.outbox.hasRoomOrMarkBehind() else { return }
        session.isBehind = false
        let old = session.dataSource.result
        let new = current
        let changeset: Changeset
        do {
            changeset = try diff(from: old.snapshot, to: new.snapshot)
        } catch {
            changeset = Changeset()
        }
        metrics.mergedPlans += 1
        send(changeset, old: old, new: new, to: session, animated: true)
        let held = session.heldReplies
        session.heldReplies.removeAll()
        for text in held { reply(to: session, text) }
    }

    /// Applies a change to a client's view and sends the plan, bringing the
    /// client to the current `seq`. `updatedFrames`, when given, is the
    /// change's updated items' frames shared by the clients at its old
    /// state.
    private func send(
        _ changeset: Changeset, old: FetchedResult<ServeRecord>, new: FetchedResult<ServeRecord>,
        to session: ServeSession, animated: Bool, updatedFrames: ServeUpdatedFrames? = nil
    ) {
        guard let view = session.view else { return }
        let fromSeq = session.seq
        session.dataSource.result = new
        let nothingVisible = updatedFrames.map { $0.changesNothingVisible(in: view, kind: session.layoutKind) }
            ?? Self.changesNothingVisible(changeset, in: view)
        if nothingVisible {
            // Only items outside the viewport changed content: the view's
            // counts and layout stay as they are, and its plan would list
            // every visible element as unchanged.
            session.seq = seq
            let (text, frame) = unchangedPlanMessage(changeset: changeset, new: new, fromSeq: fromSeq, session: session, animated: animated)
            metrics.plansSent += 1
            metrics.unchangedPlans += 1
            reply(to: session, text, frame: frame)
            return
        }
        let plan: AnimationPlan
        do {
            plan = try view.performBatchUpdates(changeset, animated: animated)
        } catch {
            // A changeset the view refuses (it should not happen): show the
            // new state without animating.
            let bounds = view.bounds
            view.reloadData()
            view.setBounds(bounds, animated: false)
            plan = AnimationPlan(
                elements: [], contentSizeBefore: view.contentSize, contentSizeAfter: view.contentSize,
                contentOffsetBefore: bounds.origin, contentOffsetAfter: bounds.origin, duration: 0,
                timing: view.animationTiming, dequeuedViews: [], recycledViews: []
            )
        }
        session.seq = seq
        metrics.plansSent += 1
        reply(to: session, planMessage(plan, changeset: changeset, old: old, new: new, fromSeq: fromSeq, session: session))
    }

    // MARK: Messages

    /// The `snapshot` message of a client that just said `hello`.
    ///
    /// - Complexity: O(*v*) for *v* elements in the viewport, plus O(*n*)
    ///   when the client wants ids.
    func snapshotMessage(for session: ServeSession) -> String {
        guard let view = session.view else { return "" }
        let result = session.dataSource.result
        var out = ServeEncoder(capacity: 4096)
        out.raw("{\"type\":\"snapshot\",\"seq\":"); out.int(session.seq)
        out.raw(",\"contentSize\":"); out.size(view.contentSize)
        out.raw(",\"viewport\":"); out.rect(view.bounds)
        out.raw(",\"sections\":"); out.sections(result)
        out.raw(",\"elements\":"); out.elements(view.collectionViewLayout.layoutAttributesForElements(in: view.bounds), in: result)
        if session.wantsIDs { out.raw(",\"ids\":"); out.ids(result) }
        // Editable when the client may edit and the list allows an edit;
        // `edits` names the ones it allows.
        let allowed = configuration.allowedEdits
        out.raw(",\"editable\":"); out.bool(session.canEdit && !allowed.isEmpty)
        out.raw(",\"edits\":[")
        var first = true
        for (edit, name) in [(LiveList.Edits.move, "move"), (.rename, "rename"), (.delete, "delete"), (.add, "add")] where session.canEdit && allowed.contains(edit) {
            if !first { out.raw(",") }
            first = false
            out.string(name)
        }
        out.raw("]")
        out.raw("}")
        return out.text
    }

    /// The `elements` message for a client's viewport.
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements in the viewport.
    func elementsMessage(for session: ServeSession) -> String {
        guard let view = session.view else { return "" }
        var out = ServeEncoder(capacity: 4096)
        out.raw("{\"type\":\"elements\",\"seq\":"); out.int(session.seq)
        out.raw(",\"contentSize\":"); out.size(view.contentSize)
        out.raw(",\"viewport\":"); out.rect(view.bounds)
        out.raw(",\"elements\":"); out.elements(view.collectionViewLayout.layoutAttributesForElements(in: view.bounds), in: session.dataSource.result)
        out.raw("}")
        return out.text
    }

    /// The `plan` message of a change, with the elements of the plan and of
    /// the viewport after it, and the changeset when the client wants ids.
    ///
    /// - Complexity: O(*e* + *v* + *s*) for *e* plan elements, *v* settled
    ///   elements and *s* sections, plus the changeset's size.
    func planMessage(
        _ plan: AnimationPlan, changeset: Changeset, old: FetchedResult<ServeRecord>, new: FetchedResult<ServeRecord>,
        fromSeq: Int, session: ServeSession
    ) -> String {
        guard let view = session.view else { return "" }
        var out = ServeEncoder(capacity: 4096)
        out.raw("{\"type\":\"plan\",\"fromSeq\":"); out.int(fromSeq)
        out.raw(",\"seq\":"); out.int(session.seq)
        out.raw(",\"animated\":"); out.bool(plan.duration > 0)
        out.raw(",\"duration\":"); out.number(plan.duration)
        out.raw(",\"timing\":"); out.string(Self.timingName(plan.timing))
        out.raw(",\"contentSizeBefore\":"); out.size(plan.contentSizeBefore)
        out.raw(",\"contentSizeAfter\":"); out.size(plan.contentSizeAfter)
        out.raw(",\"contentOffsetBefore\":"); out.point(plan.contentOffsetBefore)
        out.raw(",\"contentOffsetAfter\":"); out.point(plan.contentOffsetAfter)
        var body = ServeEncoder(capacity: 4096)
        let moves = body.planElements(plan, old: old, new: new)
        out.raw(",\"moves\":[")
        for (i, key) in moves.enumerated() {
            if i > 0 { out.raw(",") }
            out.string(key)
        }
        out.raw("],\"elements\":"); out.raw(body.text)
        out.raw(",\"settled\":"); out.elements(view.collectionViewLayout.layoutAttributesForElements(in: view.bounds), in: new)
        out.raw(",\"sections\":"); out.sections(new)
        if session.wantsIDs { out.raw(",\"changeset\":"); out.changeset(changeset, new: new) }
        out.raw("}")
        return out.text
    }

    /// Whether a change only reloads items none of which is in the view's
    /// bounds (at most 64 of them; more take the full path), so that
    /// nothing the client shows changes.
    ///
    /// - Complexity: O(*u* log *n*) for *u* updated items.
    static func changesNothingVisible(_ changeset: Changeset, in view: CollectionView) -> Bool {
        guard changeset.sectionDeletes.isEmpty, changeset.sectionInserts.isEmpty, changeset.sectionMoves.isEmpty,
              changeset.itemDeletes.isEmpty, changeset.itemInserts.isEmpty, changeset.itemMoves.isEmpty,
              !changeset.itemUpdates.isEmpty, changeset.itemUpdates.count <= 64
        else { return false }
        let layout = view.collectionViewLayout
        let shown = shownRect(of: view)
        for update in changeset.itemUpdates {
            guard update.from == update.to, let attributes = layout.layoutAttributesForItem(at: update.to) else { return false }
            if attributes.frame.intersects(shown) { return false }
        }
        return true
    }

    /// The rectangle a view shows, with a point of margin: an item that
    /// only touches the bounds counts as shown.
    static func shownRect(of view: CollectionView) -> Rect {
        Rect(
            origin: Point(x: view.bounds.origin.x - 1, y: view.bounds.origin.y - 1),
            size: Size(width: view.bounds.size.width + 2, height: view.bounds.size.height + 2)
        )
    }

    /// The `plan` message of a change that leaves everything the client
    /// shows as it is: `"unchanged": true`, no elements, no `settled` and
    /// no `sections` (the client keeps what it shows, and the counts are
    /// the same), and the changeset when the client wants ids. Without ids
    /// the text is the same for every client that goes from `fromSeq` to
    /// the same `seq`, so it is written once and shared.
    ///
    /// - Returns: The text, and for the shared text its encoded frame (one
    ///   buffer every attached channel writes).
    /// - Complexity: O(1) once written for a change, plus the changeset's
    ///   size for a client that wants ids.
    func unchangedPlanMessage(changeset: Changeset, new: FetchedResult<ServeRecord>, fromSeq: Int, session: ServeSession, animated: Bool) -> (text: String, frame: ByteBuffer?) {
        if !session.wantsIDs, let cached = unchangedPlanCache, cached.fromSeq == fromSeq, cached.seq == session.seq, cached.animated == animated {
            return (cached.text, cached.frame)
        }
        var out = ServeEncoder(capacity: 160)
        out.raw("{\"type\":\"plan\",\"fromSeq\":"); out.int(fromSeq)
        out.raw(",\"seq\":"); out.int(session.seq)
        out.raw(",\"animated\":"); out.bool(animated)
        out.raw(",\"duration\":0,\"moves\":[],\"elements\":[],\"unchanged\":true")
        guard session.wantsIDs else {
            out.raw("}")
            let frame = ServeFrameWriter.textFrame(out.text)
            unchangedPlanCache = (fromSeq, session.seq, animated, out.text, frame)
            return (out.text, frame)
        }
        out.raw(",\"changeset\":"); out.changeset(changeset, new: new)
        out.raw("}")
        return (out.text, nil)
    }

    /// The protocol's name of a timing curve.
    static func timingName(_ timing: AnimationTiming) -> String {
        switch timing {
        case .linear: "linear"
        case .easeInOut: "easeInOut"
        case .spring: "spring"
        }
    }

    /// The `error` message of a refused message.
    static func errorMessage(_ error: ServeMessageError) -> String {
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

    /// The `done` message of an edit that committed as change `seq` (or
    /// changed nothing visible, at the current `seq`).
    static func doneMessage(request: Int64, seq: Int) -> String {
        "{\"type\":\"done\",\"request\":\(request),\"seq\":\(seq)}"
    }
}

/// Collects the controller's reports on the hub's actor.
final class ServeReportCollector: FetchedResultsControllerDelegate {
    /// The reports not sent yet, oldest first.
    var reports: [ChangeReport<ServeRecord>] = []

    func controller(_ controller: FetchedResultsController<ServeRecord>, didChangeContentWith report: ChangeReport<ServeRecord>) {
        reports.append(report)
    }
}

@available(*, unavailable)
extension ServeReportCollector: Sendable {}

extension ServeHub {
    /// The hub's metrics in Prometheus' text format, with the clients
    /// connected and the rows of the list now.
    ///
    /// - Complexity: O(1) in the clients and rows.
    package func metricsText() -> String {
        metrics.prometheusText(clients: sessions.count, rows: current.count)
    }

    /// Counts an edit's outcome, and logs a refusal.
    func countEdit(done: Bool, session: ServeSession, error: ServeMessageError? = nil) {
        if done {
            metrics.editsDone += 1
        } else {
            metrics.editsRefused += 1
            if let error {
                logger.info("edit refused", metadata: ["client": "\(session.id.value)", "code": "\(error.code.rawValue)", "message": "\(error.message)"])
            }
        }
    }
}
