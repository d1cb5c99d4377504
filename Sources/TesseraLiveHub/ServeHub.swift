import Foundation
import Logging
import TesseraDiff
import TesseraLayout
import TesseraLiveProtocol
import TesseraResults
import TesseraResultsCore
import TesseraSQLite
import TesseraView

/// The live list's hub: one results controller over the configured table,
/// and one collection view per group of clients that lay the list out the
/// same way (a layout kind and a width, see ``ServeLayoutGroup``); each
/// client keeps only its viewport, its state and its outbox.
///
/// Every report of the controller (a commit that changed the list, from a
/// client's edit, another connection or another process) becomes change
/// `seq`. Each group's view takes the change once, and each of its clients
/// that is up to date gets a `plan` for its own viewport; clients with the
/// same viewport share one plan's text and frame. A client whose outbox is
/// full is behind: it gets nothing until the outbox drains, then one plan
/// from the state it has to the current one. Messages and their errors are those of the
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
/// reports on the actor. The actor runs on a thread of its own
/// (``executor``), never on Swift concurrency's cooperative pool: its
/// reads wait for a disk or a database server, and its plans for many
/// clients take long; on the pool either would hold one of a few threads
/// every other task of the process needs (the server's connections, a
/// test's). Its polling task runs there too, so following needs no
/// thread of the pool.
package actor ServeHub {
    /// The thread the hub runs on. It starts with the hub's first job and
    /// ends once the hub is released (a started hub, once ``stop()`` has
    /// ended its polling task, which holds it).
    package nonisolated let executor = DedicatedThreadExecutor(name: "tessera.hub")

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    deinit {
        executor.stop()
    }

    /// The configuration it was made with.
    package nonisolated let configuration: ServeConfiguration
    /// The table as checked against the database.
    package nonisolated let schema: ServeSchema
    /// The hub's connection to an SQLite file: the controller reads it and
    /// edits write it; `nil` for a list served by a ``backend``.
    package let connection: Connection?
    /// The database the list is served from when it is not an SQLite file
    /// (PostgreSQL); `nil` for a file.
    package let backend: (any ServeBackend)?
    /// The list, homed on the hub.
    package let controller: FetchedResultsController<ServeRecord>
    /// Where the controller's reports wait until they are sent.
    package let collector = ServeReportCollector()
    /// Whether the controller was fetched on the actor (its home).
    private var isHome = false
    /// The number of reports so far: the state the current result is.
    package private(set) var seq = 0
    /// The connected clients.
    package var sessions: [ServeClientID: ServeSession] = [:]
    /// The groups of clients that share a layout, each at the current list.
    package var groups: [ServeLayoutGroup.Key: ServeLayoutGroup] = [:]
    /// The last `unchanged` plan written for clients without ids, shared by
    /// every client that goes from the same state to the same one.
    package var unchangedPlanCache: (fromSeq: Int, seq: Int, animated: Bool, frame: ServeFrame)?
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
    package var logger: Logger { configuration.logger }
    /// The fingerprint of the list at `seq` (``ServeStateFingerprint``),
    /// once a client said `hello`; kept up to date with every change after.
    private var fingerprint: ServeStateFingerprint?
    /// The last states of the list, oldest first, by fingerprint: a client
    /// that reconnects (here or from another process) naming one of them
    /// gets one plan from it (``ServeConfiguration/resumableStates``).
    /// Each with the rows it holds that no later state shares: those of a
    /// state the next change fetched again.
    private var recentStates: [(state: ServeStateFingerprint, result: FetchedResult<ServeRecord>, unsharedRows: Int)] = []
    /// The number of states kept for clients that reconnect.
    package var keptStates: Int { recentStates.count }
    /// The last changeset of a resume, from a named state to `seq`: the
    /// clients of a process that went away come back naming the same
    /// state, and share one diff.
    private var resumeDiffs: (seq: Int, changesets: [ServeStateFingerprint: Changeset]) = (0, [:])

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
            let lazy = schema.lazyRequest(on: connection)
            isLazy = lazy != nil
            controller = try FetchedResultsController<ServeRecord>(connection: connection, request: lazy ?? schema.request)
            // Checks that the list can be read, with the request's own
            // columns and order over no row: the hub fetches on the actor,
            // which becomes the controller's home (a lazy fetch here would
            // load every key twice).
            var check = schema.request
            check.predicate = "0"
            check.fetchBatchSize = 0
            let checker = try FetchedResultsController<ServeRecord>(connection: connection, request: check)
            try ServeRecord.$tableColumns.withValue(schema.tableColumns) {
                try checker.performFetch(isolation: nil)
            }
        } catch {
            throw ServeError("\(path): table \(schema.table): \(error)")
        }
        self.configuration = configuration
        self.schema = schema
        self.connection = connection
        self.backend = nil
        self.controller = controller
    }

    /// A hub over a database other than an SQLite file: `backend` has
    /// checked the table, and makes the controller and writes the edits.
    ///
    /// - Throws: ``ServeError`` for a poll interval that is not positive,
    ///   an outbox capacity below 1, or a controller the backend cannot
    ///   make.
    package init(configuration: ServeConfiguration, backend: any ServeBackend) throws(ServeError) {
        guard configuration.pollInterval > .zero else {
            throw ServeError("poll interval \(configuration.pollInterval): it must be positive")
        }
        guard configuration.outboxCapacity >= 1 else {
            throw ServeError("outbox capacity \(configuration.outboxCapacity): at least 1 message must be able to wait")
        }
        let schema = backend.schema
        let controller = try backend.makeController()
        // Fetched here, with no home (see ``becomeHome()``): a table that
        // cannot be read, or a server that cannot follow it (no
        // replication slot free), stops the hub from starting.
        do {
            try ServeRecord.$tableColumns.withValue(schema.tableColumns) {
                try controller.performFetch(isolation: nil)
            }
        } catch {
            throw ServeError("\(backend.source): table \(schema.table): \(error)")
        }
        controller.delegate = collector
        self.configuration = configuration
        self.schema = schema
        self.connection = nil
        self.backend = backend
        self.controller = controller
        self.isLazy = false
        self.isHome = true
    }

    /// Where the list is read from, for logs: the file, or the backend's
    /// source (never a password).
    package nonisolated var source: String { backend?.source ?? configuration.databasePath }

    /// The number of connected clients.
    package var clientCount: Int { sessions.count }

    /// Whether the list is read lazily: the table has a change log that
    /// covers it (``ServeSchema/lazyRequest(on:)``).
    package nonisolated let isLazy: Bool

    /// The number of clients in each group of clients that share a layout,
    /// smallest first.
    ///
    /// - Complexity: O(*g* log *g*) for *g* groups.
    package var groupSizes: [Int] { groups.values.map(\.members.count).sorted() }

    /// The current list: the controller's result itself (a copy shares its
    /// records), never a snapshot of it.
    package var current: FetchedResult<ServeRecord> { controller.result }

    /// How the controller made its last report: patched row by row, or
    /// fetched again and diffed; `nil` before the first commit.
    package var lastUpdateMethod: FetchedResultsController<ServeRecord>.UpdateMethod? { controller.lastUpdateMethod }

    /// Fetches on the actor the first time it runs there, so that the
    /// controller reports here. A table's list is lazy: the fetch reads the
    /// sections and their counts, and every key loads in the background
    /// (``waitUntilLoaded()``). A fetch that fails is logged, and tried
    /// again at the next call.
    ///
    /// A hub over a ``backend`` is fetched by its initializer instead,
    /// with no home: the commits its store follows in the background then
    /// wait for the hub's next poll (or edit), which reads their records
    /// with the table's columns bound, rather than for a job of the
    /// actor's that would read them without.
    package func becomeHome() {
        guard !isHome else { return }
        controller.delegate = collector
        let failure = readingRecords { () -> (any Error)? in
            do {
                try controller.performFetch()
                return nil
            } catch {
                return error
            }
        }
        collector.removeAll()
        // The list was fetched anew, with no report: the states kept are
        // not its history.
        fingerprint = nil
        recentStates.removeAll()
        resumeDiffs = (0, [:])
        unchangedPlanCache = nil
        if let failure {
            if !pollFailing {
                logger.error("cannot read the table; the list is empty until a read succeeds", metadata: ["error": "\(failure)"])
            }
            pollFailing = true
            return
        }
        isHome = true
    }

    /// Waits, without blocking a thread, until every key of the list is
    /// loaded: a commit (the hub's own edit, or another process's, taken by
    /// ``poll()``) is applied only on a loaded list, which it would
    /// otherwise wait for on the hub's thread.
    package func waitUntilLoaded() async {
        becomeHome()
        guard controller.isLoading else { return }
        do {
            try await controller.waitUntilLoaded()
        } catch {
            logger.error("cannot read the table's keys; the list keeps its last state and tries again", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Following

    /// Begins following other processes' commits: every
    /// ``ServeConfiguration/pollInterval``, `PRAGMA data_version` is read
    /// and a change is reported to every client. Calling it again does
    /// nothing.
    package func start() {
        becomeHome()
        guard following == nil else { return }
        logger.info("following the table", metadata: ["table": "\(schema.table)", "database": "\(source)", "rows": "\(current.count)"])
        let interval = configuration.pollInterval
        following = Task(executorPreference: executor) { [weak self] in
            await self?.waitUntilLoaded()
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
        groups.removeAll()
    }

    /// Reads `PRAGMA data_version` once and sends the change other
    /// connections made, if any.
    ///
    /// - Complexity: O(1) when nothing changed; otherwise a re-fetch of the
    ///   table (O(*n* log *n*)) and, per up-to-date client, its view's batch
    ///   update (O(*m* + *v* log *k*), see
    ///   ``TesseraView/CollectionView/performBatchUpdates(_:animated:)-(Changeset,_)``).
    package func poll() async {
        await waitUntilLoaded()
        pollNow()
    }

    /// ``poll()`` on a list whose keys are loaded (a commit on a list still
    /// loading would wait for it on the hub's thread).
    package func pollNow() {
        readingRecords { pollBound() }
    }

    /// ``pollNow()`` with the records' columns bound.
    ///
    /// - Parameter editor: The client whose edit made the change it takes,
    ///   and whether it sees it animated.
    package func pollBound(editor: (id: ServeClientID, animated: Bool)? = nil) {
        becomeHome()
        // A backend's store hands its commits over in the background:
        // when none waits there is nothing to read (a check would still
        // open a snapshot on the server).
        if backend != nil, isHome, !controller.hasWaitingCommits {
            broadcastReports(editor: editor)
            return
        }
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
        broadcastReports(editor: editor)
    }

    /// Runs `body` (which may make the controller read rows) with the
    /// columns the records of the schema's request read bound.
    package func readingRecords<T>(_ body: () -> T) -> T {
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

    /// Disconnects a client: its outbox closes, and its group's view is
    /// released when it was the last client of the group.
    package func disconnect(_ client: ServeClientID) {
        guard let session = sessions.removeValue(forKey: client) else { return }
        leaveGroup(session)
        session.outbox.close()
        logger.debug("client disconnected", metadata: ["client": "\(client.value)", "clients": "\(sessions.count)"])
    }

    /// Handles one text frame from a client: every reply, change and error
    /// goes to the outboxes. A client that is not connected is ignored.
    ///
    /// - Complexity: O(*t*) to parse *t* characters; `hello` and
    ///   `viewport` query the client's group's view (O(log *n* + *v*)),
    ///   after laying it out (O(*n*)) when the client is the first of its
    ///   layout kind and width;
    ///   an edit costs its transaction plus what ``poll()`` costs for the
    ///   change it makes.
    package func receive(_ text: String, from client: ServeClientID) async {
        // Records are read while it runs (a lazy list reads them when shown).
        await ServeRecord.$tableColumns.withValue(schema.tableColumns) {
            await handle(text, from: client)
        }
    }

    /// ``receive(_:from:)`` with the records' columns bound.
    private func handle(_ text: String, from client: ServeClientID) async {
        // A lazy list whose keys are loading may have to wait for them to
        // read a record (a page it cannot find by its index): wait here,
        // without holding a thread, rather than in the read.
        await waitUntilLoaded()
        guard let session = sessions[client] else { return }
        let message: ServeMessage
        do {
            message = try ServeMessage.parse(text)
        } catch {
            reply(to: session, Self.errorMessage(error))
            return
        }
        switch message {
        case let .hello(layout, viewport, ids, resume):
            guard !session.isReady else {
                reply(to: session, Self.errorMessage(ServeMessageError(.malformed, "hello was already sent on this connection")))
                return
            }
            session.wantsIDs = ids
            session.layoutKind = layout
            session.viewport = viewport
            // A report waiting (a lazy list's load that finished) is sent
            // first: the state named is then the one numbered `seq`.
            if !collector.reports.isEmpty { broadcastReports(editor: nil) }
            _ = currentState()
            if let resume, let known = recentStates.last(where: { $0.state == resume.state }) {
                session.result = known.result
                session.seq = resume.seq
                joinGroup(session)
                if resume.state == fingerprint, resumeAtCurrent(session) {
                    return
                }
                if current.count <= configuration.resumableRows, resumePlan(for: session, from: known.result, state: resume.state) {
                    return
                }
            }
            session.result = current
            session.seq = seq
            joinGroup(session)
            reply(to: session, snapshotMessage(for: session))
        case let .viewport(viewport, layout):
            guard session.isReady else {
                reply(to: session, Self.errorMessage(ServeMessageError(.notReady, "send hello before viewport")))
                return
            }
            session.viewport = viewport
            session.layoutKind = layout ?? session.layoutKind
            if session.group?.key != session.groupKey {
                leaveGroup(session)
                joinGroup(session)
            }
            if session.isBehind {
                // Its state is behind its group's: the elements come after
                // the merged plan, at the state that plan brings.
                session.wantsElements = true
            } else {
                reply(to: session, elementsMessage(for: session))
            }
        default:
            // An edit commits, and a commit waits for the list's keys.
            await waitUntilLoaded()
            guard sessions[client] === session else { return }
            await perform(message, from: session)
        }
    }

    /// Puts a client in the group of its layout kind and viewport, made (and
    /// laid out, at the current list) when it is the first.
    ///
    /// - Complexity: O(1), or the layout's `prepare()` (O(*n*)) for a new
    ///   group.
    private func joinGroup(_ session: ServeSession) {
        let key = session.groupKey
        let group: ServeLayoutGroup
        if let existing = groups[key] {
            group = existing
        } else {
            group = ServeLayoutGroup(key: key, viewport: session.viewport, result: current, headers: schema.sectionColumn != nil)
            groups[key] = group
        }
        group.members.insert(session.id)
        session.group = group
    }

    /// Takes a client out of its group, and drops the group when it was the
    /// last.
    private func leaveGroup(_ session: ServeSession) {
        guard let group = session.group else { return }
        group.members.remove(session.id)
        session.group = nil
        if group.members.isEmpty, groups[group.key] === group { groups[group.key] = nil }
    }

    /// Puts a reply in the client's outbox; a client closed for letting
    /// too many pile up is disconnected.
    package func reply(to session: ServeSession, _ text: String) {
        reply(to: session, ServeFrame(text))
    }

    /// Puts a message in the client's outbox (a frame shared by the
    /// clients it goes to); a client closed for letting too many pile up is
    /// disconnected.
    package func reply(to session: ServeSession, _ frame: ServeFrame) {
        if !session.outbox.push(frame, batch: activeBatch) {
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
    package func broadcastReports(editor: (id: ServeClientID, animated: Bool)?) {
        guard !collector.reports.isEmpty else { return }
        let reports = collector.reports
        let refetched = collector.refetched
        collector.removeAll()
        batchingWrites { sendEveryClient(reports, refetched: refetched, editor: editor) }
    }

    /// Sends each report, as the next change, to every group, and a plan to
    /// every client that is up to date.
    private func sendEveryClient(_ reports: [ChangeReport<ServeRecord>], refetched: [Bool], editor: (id: ServeClientID, animated: Bool)?) {
        for (index, report) in reports.enumerated() {
            let start = ContinuousClock.now
            seq += 1
            metrics.changes += 1
            if let previous = fingerprint {
                let next = previous.updated(from: listing(report.old), to: listing(report.new), changeset: report.changeset)
                    ?? ServeStateFingerprint.of(listing(report.new), base: .base(of: schema))
                fingerprint = next
                remember(next, report.new, refetched: index < refetched.count && refetched[index])
            }
            let change = ServeChange(report: report, seq: seq)
            for group in groups.values {
                send(change, to: group, editor: editor)
            }
            metrics.changeSeconds.observe(since: start)
        }
    }

    /// Applies a change to a group's view once and sends each of its
    /// clients that is up to date its plan: `unchanged` when the change
    /// touches nothing in its viewport, otherwise the plan of its viewport,
    /// written once for all the clients with the same viewport.
    ///
    /// - Complexity: one layout update, plus O(*v* log *k*) per distinct
    ///   viewport and O(1) per client beyond the first of a viewport.
    private func send(_ change: ServeChange, to group: ServeLayoutGroup, editor: (id: ServeClientID, animated: Bool)?) {
        var planned: [ServeSession] = []
        var viewports: [Rect] = []
        var viewportIndex: [Rect: Int] = [:]
        for id in group.members {
            guard let session = sessions[id], !session.isBehind else { continue }
            guard session.outbox.hasRoomOrMarkBehind() else {
                session.isBehind = !session.outbox.isClosed
                if session.isBehind {
                    metrics.clientsBehind += 1
                    logger.debug("client behind: it gets one merged plan once its outbox drains", metadata: ["client": "\(session.id.value)", "seq": "\(seq)"])
                }
                continue
            }
            let animated = editor.map { $0.id != session.id || $0.animated } ?? true
            // Only items outside the viewport changed content: what the
            // client shows stays as it is (asked before the view takes the
            // change, at the state the frames are of).
            if change.updatedFrames.changesNothingVisible(in: session.viewport, of: group) {
                let fromSeq = session.seq
                session.result = change.report.new
                session.seq = seq
                let frame = unchangedPlanMessage(changeset: change.report.changeset, new: change.report.new, fromSeq: fromSeq, session: session, animated: animated)
                metrics.plansSent += 1
                metrics.unchangedPlans += 1
                reply(to: session, frame)
                continue
            }
            if viewportIndex[session.viewport] == nil {
                viewportIndex[session.viewport] = viewports.count
                viewports.append(session.viewport)
            }
            planned.append(session)
        }
        group.dataSource.result = change.report.new
        let plans: [AnimationPlan]
        do {
            plans = try group.view.performBatchUpdates(change.report.changeset, animated: true, viewports: viewports)
        } catch {
            // A changeset the view refuses (it should not happen): show the
            // new state without animating.
            group.view.reloadData()
            plans = viewports.map { viewport in
                let size = group.view.contentSize
                return AnimationPlan(
                    elements: [], contentSizeBefore: size, contentSizeAfter: size,
                    contentOffsetBefore: viewport.origin, contentOffsetAfter: viewport.origin, duration: 0,
                    timing: group.view.animationTiming, dequeuedViews: [], recycledViews: []
                )
            }
        }
        // One text (and frame) per viewport, animation and ids asked for.
        var written: [ServePlanTextKey: ServeFrame] = [:]
        // In viewport order, the records each part of the viewports shows
        // read first in one pass (a lazy list read them one batch around
        // each, which scattered viewports evicted before the next used it).
        planned.sort { (viewportIndex[$0.viewport] ?? 0) < (viewportIndex[$1.viewport] ?? 0) }
        var readThrough = -1
        for session in planned {
            guard let index = viewportIndex[session.viewport] else { continue }
            if index > readThrough {
                readThrough = Swift.min(viewports.count, index + Self.viewportsReadAtOnce) - 1
                prefetchRecords(for: plans[index...readThrough], viewports: viewports[index...readThrough], of: change, in: group)
            }
            let animated = editor.map { $0.id != session.id || $0.animated } ?? true
            let key = ServePlanTextKey(viewport: index, animated: animated, ids: session.wantsIDs)
            let message: ServeFrame
            if let cached = written[key] {
                message = cached
            } else {
                var plan = plans[index]
                if !animated { plan.duration = 0 }
                let text = planMessage(
                    plan, changeset: change.report.changeset, old: change.report.old, new: change.report.new,
                    fromSeq: change.seq - 1, seq: change.seq, viewportSize: session.viewport.size, group: group,
                    wantsIDs: session.wantsIDs, sections: change.sections(planMessageSections)
                )
                message = ServeFrame(text)
                written[key] = message
            }
            session.result = change.report.new
            session.seq = seq
            metrics.plansSent += 1
            reply(to: session, message)
        }
    }

    /// How many viewports' records one pass reads ahead of their plans:
    /// what they show (a few dozen records each) stays well within the
    /// records a lazy list keeps.
    static let viewportsReadAtOnce = 128

    /// Reads, in one pass, the records the plans of `viewports` will
    /// write: their elements (a deleted one from the list before, the
    /// others after) and the items they show once settled. A lazy list
    /// reads exactly those it does not keep; an eager one reads nothing.
    /// A failed read is left to the encoder, which leaves out what it
    /// cannot read.
    ///
    /// - Complexity: O(*e* log *n*) for *e* elements, plus one store read
    ///   per batch of records not kept.
    func prefetchRecords(for plans: ArraySlice<AnimationPlan>, viewports: ArraySlice<Rect>, of change: ServeChange, in group: ServeLayoutGroup) {
        let old = change.report.old, new = change.report.new
        guard new.isLazy else { return }
        var before: [IndexPath] = []
        var after: [IndexPath] = []
        for (plan, viewport) in zip(plans, viewports) {
            for element in plan.elements where element.category == .cell {
                if let path = element.indexPathAfter, element.disposition != .delete {
                    after.append(path)
                } else if let path = element.indexPathBefore {
                    before.append(path)
                }
            }
            for element in group.elements(in: Rect(origin: plan.contentOffsetAfter, size: viewport.size)) where element.category == .cell {
                after.append(element.indexPath)
            }
        }
        _ = try? new.prefetchRecords(at: after)
        if !before.isEmpty { _ = try? old.prefetchRecords(at: before) }
    }

    /// Sends a client that was behind, once its outbox drained, one plan
    /// from the state it has to the current one, then the replies it
    /// waited for.
    ///
    /// The plan is made on a view of the client's own, laid out at the
    /// state it has (its group's view is at the current one).
    ///
    /// - Complexity: O(*n* + *s*) for the diff (of the two results as
    ///   snapshots) and the view's layout, plus one batch update.
    package func catchUp(_ client: ServeClientID) {
        readingRecords { catchUpBound(client) }
    }

    /// ``catchUp(_:)`` with the records' columns bound.
    private func catchUpBound(_ client: ServeClientID) {
        guard let session = sessions[client], session.isBehind else { return }
        guard session.outbox.hasRoomOrMarkBehind() else { return }
        session.isBehind = false
        let old = session.result
        let new = current
        let changeset: Changeset
        var diffed = true
        do {
            // Snapshots of their own: one cached on a state would stay as
            // long as the hub keeps the state.
            changeset = try diff(from: Self.uncachedSnapshot(of: old, tag: "old"), to: Self.uncachedSnapshot(of: new, tag: "new"))
        } catch {
            changeset = Changeset()
            diffed = false
        }
        metrics.mergedPlans += 1
        let dataSource = ServeDataSource(result: old)
        let view = ServeLayoutGroup.makeView(kind: session.layoutKind, viewport: session.viewport, dataSource: dataSource, headers: schema.sectionColumn != nil)
        dataSource.result = new
        sendOnOwnView(changeset, old: old, new: new, view: view, to: session, animated: true, stateKnown: diffed)
        if session.wantsElements {
            session.wantsElements = false
            reply(to: session, elementsMessage(for: session))
        }
        let held = session.heldReplies
        session.heldReplies.removeAll()
        for text in held { reply(to: session, text) }
    }

    /// A result as a snapshot to diff, for a client catching up. A lazy
    /// result with its keys gives them alone, read without a record: the
    /// merged plan then moves, inserts and deletes items, and its `settled`
    /// elements carry their titles now (a title changed meanwhile is not a
    /// reload). A lazy result still loading reads its records, and one it
    /// can no longer read (a row deleted since that state, whose record
    /// was not kept) stands as a placeholder of its own, which the diff
    /// deletes; `snapshot` would stop the server.
    ///
    /// - Complexity: O(*n*), with no record read when the keys are there,
    ///   else O(*n*) record reads when lazy.
    package static func readableSnapshot(of result: FetchedResult<ServeRecord>, tag: String) -> Snapshot<ResultSection, ServeRecord> {
        guard result.isLazy else { return result.snapshot }
        if result.count == 0 || result.key(at: Self.firstIndexPath(of: result)) != nil {
            return Snapshot(result.sections.indices.map { section in
                let items = (0..<result.numberOfRecords(inSection: section)).map { item in
                    let key = result.key(at: IndexPath(item: item, section: section)) ?? .null
                    return ServeRecord(id: ServeSchema.text(of: key), key: key, section: "", title: "")
                }
                return (result.sections[section], items)
            })
        }
        return recordSnapshot(of: result, tag: tag)
    }

    /// A result's records as a snapshot, read one by one: one that cannot
    /// be read stands as a placeholder of its own, which a diff deletes.
    ///
    /// - Complexity: O(*n*) record reads.
    private static func recordSnapshot(of result: FetchedResult<ServeRecord>, tag: String) -> Snapshot<ResultSection, ServeRecord> {
        var flat = 0
        return Snapshot(result.sections.indices.map { section in
            let records = (0..<result.numberOfRecords(inSection: section)).map { item in
                defer { flat += 1 }
                return (try? result.record(at: IndexPath(item: item, section: section)))
                    ?? ServeRecord(id: "\u{0}unreadable \(tag) \(flat)", key: .null, section: "", title: "")
            }
            return (result.sections[section], records)
        })
    }

    /// The index path of a result's first record.
    ///
    /// - Precondition: the result has a record.
    package static func firstIndexPath(of result: FetchedResult<ServeRecord>) -> IndexPath {
        let section = result.sections.indices.first { result.numberOfRecords(inSection: $0) > 0 } ?? 0
        return IndexPath(item: 0, section: section)
    }

    /// Applies a change to a view of the client's own (whose data source
    /// already answers for `new`) and sends the plan, bringing the client
    /// to the current `seq`.
    ///
    /// - Parameter resumedEdits: For the plan of a `hello` that resumes,
    ///   the edits the client may make (written as a snapshot would): the
    ///   plan is then never an `unchanged` one, whose client would keep
    ///   titles of the state it named, which the fingerprint does not cover.
    /// - Parameter stateKnown: Whether the plan brings the client to the
    ///   current state (the changeset is the diff of the two): otherwise,
    ///   and when the view refuses the changeset, the plan names no state,
    ///   and a client that reconnects gets a snapshot.
    private func sendOnOwnView(
        _ changeset: Changeset, old: FetchedResult<ServeRecord>, new: FetchedResult<ServeRecord>,
        view: CollectionView, to session: ServeSession, animated: Bool, resumedEdits: ServeEdits? = nil, stateKnown: Bool = true
    ) {
        var stateKnown = stateKnown
        let fromSeq = session.seq
        session.result = new
        if resumedEdits == nil, Self.changesNothingVisible(changeset, in: view) {
            session.seq = seq
            let frame = unchangedPlanMessage(changeset: changeset, new: new, fromSeq: fromSeq, session: session, animated: animated)
            metrics.plansSent += 1
            metrics.unchangedPlans += 1
            reply(to: session, frame)
            return
        }
        let plan: AnimationPlan
        do {
            plan = try view.performBatchUpdates(changeset, animated: animated)
        } catch {
            stateKnown = false
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
        var message = ServeReply.Plan(
            plan: plan, changeset: changeset, old: old, new: new, fromSeq: fromSeq, seq: seq, settled: view.visibleElements,
            wantsIDs: session.wantsIDs, sections: planMessageSections(new), sectionName: schema.sectionName
        )
        message.state = stateKnown ? fingerprint : nil
        message.resumedEdits = resumedEdits
        reply(to: session, ServeReply.plan(message).text)
    }

    // MARK: Resuming

    /// How a fingerprint reads a list: its sections by their values (typed:
    /// two sections a client is shown under the same name, such as NULL
    /// and '', stay apart), its items by id.
    package func listing(_ result: FetchedResult<ServeRecord>) -> ServeStateFingerprint.Listing {
        ServeStateFingerprint.Listing(
            sectionCount: result.numberOfSections,
            itemCount: { result.numberOfRecords(inSection: $0) },
            sectionName: { Self.identity(of: result.sections[$0].value) },
            id: { result.id(at: $0) ?? "" }
        )
    }

    /// A section value as text that tells every value apart: its kind,
    /// then its value.
    package static func identity(of value: DatabaseValue) -> String {
        switch value {
        case .null: "n"
        case .integer(let integer): "i" + String(integer)
        case .real(let real): "r" + String(real.bitPattern, radix: 16)
        case .text(let text): "t" + text
        case .blob(let bytes): "b" + bytes.map { String($0, radix: 16) }.joined(separator: ".")
        }
    }

    /// The fingerprint of the list at `seq`, computed the first time a
    /// client needs it (then kept up to date by every change); `nil` while
    /// a lazy list's keys are not loaded (its ids would be read record by
    /// record): the messages then name no state.
    ///
    /// - Complexity: O(1) once computed; the first time, O(*n* + *s*).
    package func currentState() -> ServeStateFingerprint? {
        if let fingerprint { return fingerprint }
        guard !controller.isLoading else { return nil }
        let computed = readingRecords { ServeStateFingerprint.of(listing(current), base: .base(of: schema)) }
        fingerprint = computed
        remember(computed, current)
        return computed
    }

    /// Keeps a state for clients that reconnect, dropping the oldest past
    /// ``ServeConfiguration/resumableStates``, and past four times the
    /// list's rows (at least 4,000) in rows no other state shares (a list
    /// fetched again at every commit keeps its current state and the one
    /// before, not 256 copies).
    ///
    /// - Parameter refetched: Whether the change to `result` fetched the
    ///   list again: the state before then holds its rows alone, and both
    ///   hold the snapshot the controller diffed them as.
    private func remember(_ state: ServeStateFingerprint, _ result: FetchedResult<ServeRecord>, refetched: Bool = false) {
        let limit = Swift.max(0, configuration.resumableStates)
        if refetched, let last = recentStates.indices.last {
            recentStates[last].unsharedRows += 2 * recentStates[last].result.count
        }
        recentStates.append((state, result, refetched ? result.count : 0))
        let budget = 4 * Swift.max(result.count, 1_000)
        var unshared = recentStates.reduce(0) { $0 + $1.unsharedRows }
        var drop = Swift.max(0, recentStates.count - limit)
        for index in 0..<drop { unshared -= recentStates[index].unsharedRows }
        while drop < recentStates.count - 1, unshared > budget {
            unshared -= recentStates[drop].unsharedRows
            drop += 1
        }
        if drop > 0 { recentStates.removeFirst(drop) }
    }

    /// Answers a `hello` whose `resume.state` names the current state: a
    /// resumed plan with no change (no elements, no duration) whose
    /// `settled` elements are what the viewport shows now, with today's
    /// titles, read off the group's view.
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements in the viewport, as
    ///   a snapshot.
    ///
    /// - Returns: `false` (and nothing sent) when the client has no group.
    private func resumeAtCurrent(_ session: ServeSession) -> Bool {
        guard let group = session.group else { return false }
        let fromSeq = session.seq
        let new = current
        session.result = new
        session.seq = seq
        let size = group.view.contentSize
        let plan = AnimationPlan(
            elements: [], contentSizeBefore: size, contentSizeAfter: size,
            contentOffsetBefore: session.viewport.origin, contentOffsetAfter: session.viewport.origin, duration: 0,
            timing: group.view.animationTiming, dequeuedViews: [], recycledViews: []
        )
        var message = ServeReply.Plan(
            plan: plan, changeset: Changeset(), old: new, new: new, fromSeq: fromSeq, seq: seq, settled: group.elements(in: session.viewport),
            wantsIDs: session.wantsIDs, sections: planMessageSections(new), sectionName: schema.sectionName
        )
        message.state = fingerprint
        message.resumedEdits = session.canEdit ? configuration.allowedEdits : []
        metrics.resumedPlans += 1
        metrics.plansSent += 1
        logger.debug("client resumed at the current state", metadata: ["client": "\(session.id.value)", "fromSeq": "\(fromSeq)", "seq": "\(seq)"])
        reply(to: session, ServeReply.plan(message).text)
        return true
    }

    /// Answers a `hello` whose `resume.state` names a kept state: one plan
    /// from that state (its client's `seq` as `fromSeq`) to the current one,
    /// marked `resumed`, on a view of the client's own laid out at that
    /// state, with the edits it may make.
    ///
    /// - Complexity: O(*n* + *s*) for the diff and the view's layout, plus
    ///   one batch update, as a client catching up (``catchUp(_:)``).
    /// - Returns: `false` (and nothing sent) when the two lists cannot be
    ///   diffed: the client then gets a snapshot.
    private func resumePlan(for session: ServeSession, from old: FetchedResult<ServeRecord>, state: ServeStateFingerprint) -> Bool {
        let new = current
        let changeset: Changeset
        if resumeDiffs.seq != seq { resumeDiffs = (seq, [:]) }
        if let cached = resumeDiffs.changesets[state] {
            changeset = cached
        } else {
            do {
                // Snapshots of their own: one cached on a kept state would
                // stay as long as the state.
                changeset = try diff(from: Self.uncachedSnapshot(of: old, tag: "old"), to: Self.uncachedSnapshot(of: new, tag: "new"))
            } catch {
                return false
            }
            resumeDiffs.changesets[state] = changeset
        }
        metrics.resumedPlans += 1
        logger.debug("client resumed from a state it named", metadata: ["client": "\(session.id.value)", "fromSeq": "\(session.seq)", "seq": "\(seq)"])
        let dataSource = ServeDataSource(result: old)
        let view = ServeLayoutGroup.makeView(kind: session.layoutKind, viewport: session.viewport, dataSource: dataSource, headers: schema.sectionColumn != nil)
        dataSource.result = new
        sendOnOwnView(changeset, old: old, new: new, view: view, to: session, animated: true, resumedEdits: session.canEdit ? configuration.allowedEdits : [])
        return true
    }

    /// ``readableSnapshot(of:tag:)`` made anew, never the snapshot a state
    /// caches.
    ///
    /// - Complexity: O(*n*).
    package static func uncachedSnapshot(of result: FetchedResult<ServeRecord>, tag: String) -> Snapshot<ResultSection, ServeRecord> {
        guard !result.isLazy else { return readableSnapshot(of: result, tag: tag) }
        return recordSnapshot(of: result, tag: tag)
    }

    // MARK: Messages

    /// The `snapshot` message of a client that just said `hello`.
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements in the viewport,
    ///   plus O(*s*) for the sections and O(*n*) when the client wants ids.
    package func snapshotMessage(for session: ServeSession) -> String {
        guard let group = session.group else { return "" }
        var message = ServeReply.Snapshot(
            seq: session.seq, contentSize: group.view.contentSize, viewport: session.viewport, result: session.result,
            elements: group.elements(in: session.viewport), ids: session.wantsIDs,
            // Editable when the client may edit and the list allows an edit.
            edits: session.canEdit ? configuration.allowedEdits : [], sectionName: schema.sectionName
        )
        message.state = session.seq == seq ? fingerprint : nil
        return ServeReply.snapshot(message).text
    }

    /// The `elements` message for a client's viewport, at the state it was
    /// last sent (its group's: a client that is behind asks after its
    /// merged plan).
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements in the viewport.
    package func elementsMessage(for session: ServeSession) -> String {
        guard let group = session.group else { return "" }
        return ServeReply.elements(ServeReply.Elements(
            seq: session.seq, contentSize: group.view.contentSize, viewport: session.viewport, result: session.result,
            elements: group.elements(in: session.viewport), sectionName: schema.sectionName
        )).text
    }

    /// The `sections` of a plan: the new list's, written once per change.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    package func planMessageSections(_ new: FetchedResult<ServeRecord>) -> String {
        var out = ServeEncoder(capacity: 1024)
        out.sections(new, sectionName: schema.sectionName)
        return out.text
    }

    /// The `plan` message of a change for a viewport of a group, whose view
    /// is at the change's new state.
    ///
    /// - Complexity: O(*e* + *v*) for *e* plan elements and *v* settled
    ///   elements, plus the changeset's size when the client wants ids.
    package func planMessage(
        _ plan: AnimationPlan, changeset: Changeset, old: FetchedResult<ServeRecord>, new: FetchedResult<ServeRecord>,
        fromSeq: Int, seq: Int, viewportSize: Size, group: ServeLayoutGroup, wantsIDs: Bool, sections: String
    ) -> String {
        let settled = group.elements(in: Rect(origin: plan.contentOffsetAfter, size: viewportSize))
        var message = ServeReply.Plan(
            plan: plan, changeset: changeset, old: old, new: new, fromSeq: fromSeq, seq: seq, settled: settled,
            wantsIDs: wantsIDs, sections: sections, sectionName: schema.sectionName
        )
        message.state = seq == self.seq ? fingerprint : nil
        return ServeReply.plan(message).text
    }

    /// Whether a change only reloads items none of which is in the view's
    /// bounds (at most 64 of them; more take the full path), so that
    /// nothing the client shows changes.
    ///
    /// - Complexity: O(*u* log *n*) for *u* updated items.
    package static func changesNothingVisible(_ changeset: Changeset, in view: CollectionView) -> Bool {
        guard changeset.sectionDeletes.isEmpty, changeset.sectionInserts.isEmpty, changeset.sectionMoves.isEmpty,
              changeset.itemDeletes.isEmpty, changeset.itemInserts.isEmpty, changeset.itemMoves.isEmpty,
              !changeset.itemUpdates.isEmpty, changeset.itemUpdates.count <= 64
        else { return false }
        let layout = view.collectionViewLayout
        let shown = shownRect(of: view.bounds)
        for update in changeset.itemUpdates {
            guard update.from == update.to, let attributes = layout.layoutAttributesForItem(at: update.to) else { return false }
            if attributes.frame.intersects(shown) { return false }
        }
        return true
    }

    /// The rectangle a viewport shows, with a point of margin: an item that
    /// only touches it counts as shown.
    package static func shownRect(of viewport: Rect) -> Rect {
        Rect(
            origin: Point(x: viewport.origin.x - 1, y: viewport.origin.y - 1),
            size: Size(width: viewport.size.width + 2, height: viewport.size.height + 2)
        )
    }

    /// The `plan` message of a change that leaves everything the client
    /// shows as it is (``ServeReply/UnchangedPlan``). Without ids the text
    /// is the same for every client that goes from `fromSeq` to the same
    /// `seq`, so it is written once and shared, with its frame (the
    /// transport encodes it once for every client).
    ///
    /// - Complexity: O(1) once written for a change, plus the changeset's
    ///   size for a client that wants ids.
    package func unchangedPlanMessage(changeset: Changeset, new: FetchedResult<ServeRecord>, fromSeq: Int, session: ServeSession, animated: Bool) -> ServeFrame {
        if !session.wantsIDs, let cached = unchangedPlanCache, cached.fromSeq == fromSeq, cached.seq == session.seq, cached.animated == animated {
            return cached.frame
        }
        var message = ServeReply.UnchangedPlan(
            fromSeq: fromSeq, seq: session.seq, animated: animated, changeset: session.wantsIDs ? (changeset, new) : nil, sectionName: schema.sectionName
        )
        message.state = session.seq == seq ? fingerprint : nil
        let frame = ServeFrame(ServeReply.unchangedPlan(message).text)
        if !session.wantsIDs { unchangedPlanCache = (fromSeq, session.seq, animated, frame) }
        return frame
    }

    /// The `error` message of a refused message.
    package static func errorMessage(_ error: ServeMessageError) -> String {
        ServeReply.error(error).text
    }

    /// The `done` message of an edit that committed as change `seq` (or
    /// changed nothing visible, at the current `seq`).
    package static func doneMessage(request: Int64, seq: Int) -> String {
        ServeReply.done(request: request, seq: seq).text
    }
}

/// Collects the controller's reports on the hub's actor.
package final class ServeReportCollector: FetchedResultsControllerDelegate {
    /// The reports not sent yet, oldest first.
    package var reports: [ChangeReport<ServeRecord>] = []
    /// Beside each report, whether the controller fetched the list again
    /// for it (its new state then shares no storage with the old one).
    package var refetched: [Bool] = []

    package func controller(_ controller: FetchedResultsController<ServeRecord>, didChangeContentWith report: ChangeReport<ServeRecord>) {
        reports.append(report)
        refetched.append(controller.lastUpdateMethod == .refetch)
    }

    /// Forgets the reports.
    package func removeAll() {
        reports.removeAll()
        refetched.removeAll()
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
    package func countEdit(done: Bool, session: ServeSession, error: ServeMessageError? = nil) {
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
