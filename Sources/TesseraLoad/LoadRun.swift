import Foundation
import NIOCore
import NIOPosix
import Synchronization
import TesseraCommandKit
import TesseraDemoPhotos

/// `tessera bench serve`: connects reading clients with different viewports
/// to a live-list server on the loopback interface, has one writer rename
/// items at a steady rate, and measures how long each change takes to reach
/// each client as a plan, whether any plan is lost or repeated, and what the
/// server spends in CPU time and memory.
///
/// The run is bounded: at most ``LoadConfiguration/clientRange`` clients,
/// for ``LoadConfiguration/seconds`` of edits (per step of a ramp) plus at
/// most 15 seconds of draining; then every connection closes and the server
/// it started ends.
package struct LoadRun: Sendable {
    /// What to run.
    package var configuration: LoadConfiguration

    /// Creates a run.
    package init(configuration: LoadConfiguration) {
        self.configuration = configuration
    }

    /// How long a client may take to connect and get its snapshot and
    /// elements, in seconds.
    static let readyTimeout: Int64 = 60
    /// How many clients connect at once.
    static let connectWindow = 100
    /// How long the run waits after the last edit for every plan, in
    /// seconds.
    static let drainTimeout = 15.0

    /// With `--rows`: the hellos sent one at a time (the first as soon as
    /// the server printed its address).
    package static let sequentialHellos = 10
    /// With `--rows`: the commits, and the renames, made one at a time.
    package static let probeChanges = 20

    /// Runs the load and reports it.
    ///
    /// It blocks the calling thread for the whole run (it waits on the
    /// clients' event loops, and sleeps between edits): call it from a
    /// thread of its own, as `tessera bench serve` does from its main
    /// thread, never from async code, where it would hold one of the few
    /// threads of Swift concurrency's cooperative pool.
    ///
    /// With ``LoadConfiguration/rows``, it first writes the table, starts
    /// the server on it, and measures (see ``LoadTableReport``): the
    /// server's start; ``sequentialHellos`` hellos one at a time, each to
    /// its snapshot; the clients' own hellos as they connect;
    /// ``probeChanges`` one-row commits by this process and as many
    /// renames, each awaited in every client; the server's memory before
    /// the commits and after ten. Then the load runs as without it.
    ///
    /// - Parameters:
    ///   - progress: Gets the fraction done and what runs (a terminal's
    ///     progress line).
    ///   - milestone: Gets a line for each phase of a run with a table as
    ///     it ends (where the time goes), for standard error.
    /// - Throws: ``LoadError`` for options out of range, a file limit or port
    ///   range too small for the clients, a table that cannot be written, a
    ///   server that does not start, or clients that cannot connect.
    /// - Complexity: O(*n* log *n*) for a table of *n* rows, plus
    ///   O(*c* · *r* · *s*) for *c* clients, *r* edits a second and *s*
    ///   seconds (one record per plan received), plus sorting the
    ///   latencies.
    package func run(progress: @escaping (Double, String) -> Void, milestone: @escaping (String) -> Void = { _ in }) throws(LoadError) -> LoadReport {
        try configuration.validate()
        let counts = configuration.ramp.isEmpty ? [configuration.clients] : configuration.ramp
        let largest = counts.max() ?? configuration.clients
        var notes: [String] = []
        let openFiles = raiseOpenFileLimit()
        // One descriptor per client here (and one per client in the server
        // when it is a child, which raises its own limit), and a margin for
        // the writer, the pipes and the event loops.
        guard openFiles >= largest + 64 else {
            throw LoadError("\(largest) clients need \(largest + 64) open files, and the limit here is \(openFiles) (raise the hard limit: ulimit -Hn)")
        }
        if let ports = ephemeralPortCount(), ports < largest + 16 {
            throw LoadError("\(largest) clients need \(largest + 16) local ports, and the system hands out \(ports) (net.ipv4.ip_local_port_range)")
        }

        let began = loadNow()
        func note(_ line: String) {
            milestone(String(format: "[%7.2f s] ", Double(loadNow() - began) / 1e9) + line)
        }
        // The server's files (the demo library or the table) go when the
        // run ends, after the server.
        var folder: LoadScratchFolder?
        defer { folder?.remove() }
        var server: LoadServerProcess?
        defer { server?.stop() }
        var table: LoadTable?
        var tableReport: LoadTableReport?
        let target: LoadTarget
        if let given = configuration.target {
            target = given
        } else {
            let scratch = try LoadScratchFolder()
            folder = scratch
            var arguments = ["--photos", String(configuration.photos)]
            var shows = "\(configuration.photos) photos"
            if let rows = configuration.rows {
                let made = LoadTable(path: scratch.url.appendingPathComponent("bench.sqlite").path, rows: rows,
                                     sections: configuration.sections ?? LoadConfiguration.defaultSections, changeLog: configuration.changeLog)
                note("writing \(rows) rows in \(made.sections) sections to \(made.path)")
                let start = loadNow()
                try made.build(progress: { written in
                    progress(0, "writing the table: \(written) of \(rows) rows")
                    if written % 1_000_000 == 0, written < rows { note("\(written) rows written") }
                }, isStopped: configuration.isStopped)
                let seconds = Double(loadNow() - start) / 1e9
                note("table written in \(String(format: "%.2f", seconds)) s" + (made.changeLog ? ", with its change log" : ", without a change log"))
                table = made
                tableReport = LoadTableReport(rows: rows, sections: made.sections, changeLog: made.changeLog, buildSeconds: seconds)
                arguments = made.serveArguments
                shows = "\(rows) rows"
            }
            progress(0, "starting tessera serve (\(shows))")
            // Room for every client of the run, the writer, and the hellos
            // made one at a time (the server may not have let go of them).
            let started = try LoadServerProcess(executable: configuration.serverExecutable, arguments: arguments, clients: largest + 16 + Self.sequentialHellos,
                                                folder: scratch.url, timeout: 300)
            server = started
            if table != nil { note("tessera serve printed its address after \(String(format: "%.2f", started.startSeconds)) s") }
            target = LoadTarget(address: "127.0.0.1", port: started.port, hostHeader: "127.0.0.1:\(started.port)", path: "/live")
        }
        let serverPID = server?.pid ?? configuration.serverPID
        if serverPID == nil { notes.append("The server's CPU time and memory are not measured: give --server-pid with --url.") }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        defer { try? group.syncShutdownGracefully() }
        var session = LoadSession(configuration: configuration, connector: LoadConnector(group: group, target: target), serverPID: serverPID)
        defer { session.closeAll() }

        if tableReport != nil {
            progress(0, "\(Self.sequentialHellos) hellos, one at a time")
            let (latency, firstArrival) = try session.sequentialSnapshots(count: Self.sequentialHellos)
            tableReport?.sequentialSnapshot = latency
            if let server, let firstArrival { tableReport?.readySeconds = Double(firstArrival &- server.spawned) / 1e9 }
            note("\(Self.sequentialHellos) hellos answered, one at a time")
        }
        let before = serverPID.flatMap(LoadProcessSample.read(pid:))
        try session.connectWriter(ids: table?.ids)
        var steps: [LoadStepReport] = []
        for (number, count) in counts.enumerated() {
            let label = counts.count > 1 ? "step \(number + 1) of \(counts.count): " : ""
            try session.connect(upTo: count) { done in
                progress(Double(number) / Double(counts.count), "\(label)connecting clients: \(done) of \(count)")
            }
            // Memory settles once every client has its elements.
            let connected = serverPID.flatMap(LoadProcessSample.read(pid:))
            if number == 0, let table, var report = tableReport {
                note("\(count) clients and the writer connected")
                report.clientSnapshot = session.clientSnapshots()
                if let before, let connected {
                    report.residentPerClient = Double(connected.residentBytes - before.residentBytes) / Double(count)
                }
                report.residentBeforeCommits = serverPID.flatMap(LoadProcessSample.read(pid:))?.residentBytes
                let writer = try LoadTableWriter(table: table, seed: configuration.seed)
                progress(0, "\(Self.probeChanges) commits by this process, one at a time")
                var afterTen: Int?
                report.commits = try session.probeCommits(writer: writer, count: Self.probeChanges) {
                    afterTen = serverPID.flatMap(LoadProcessSample.read(pid:))?.residentBytes
                }
                report.residentAfterTenCommits = afterTen
                note("\(Self.probeChanges) commits by this process reached every client")
                progress(0, "\(Self.probeChanges) renames, one at a time")
                report.renames = try session.probeRenames(count: Self.probeChanges)
                note("\(Self.probeChanges) renames reached every client")
                tableReport = report
            }
            var step = session.measure { fraction, text in
                progress((Double(number) + fraction) / Double(counts.count), label + text)
            }
            if configuration.isStopped() { throw LoadError.interrupted }
            if let before, let connected {
                step.residentBefore = before.residentBytes
                step.residentAfter = connected.residentBytes
            }
            steps.append(step)
            if tableReport != nil { note("\(count) clients: the load ran") }
            if counts.count > 1, let p99 = step.latency?.p99, p99 * 1_000 > configuration.rampLimitMilliseconds, number < counts.count - 1 {
                notes.append("The ramp stopped after \(count) clients: p99 \(LoadReport.milliseconds(p99)) is over \(LoadReport.number(configuration.rampLimitMilliseconds)) ms.")
                break
            }
            if step.failedClients > 0, number < counts.count - 1 {
                notes.append("The ramp stopped after \(count) clients: \(step.failedClients) lost their connection.")
                break
            }
        }
        var floorSteps: [LoadStepReport]?
        if configuration.floor, let scratch = folder {
            // Tessera's clients go first: the floor's take their places.
            session.closeAll()
            floorSteps = try measureFloor(counts: Array(counts.prefix(steps.count)), after: steps, largest: largest, group: group, folder: scratch, progress: progress)
            note("the floor: the same load ran against a server that computes nothing")
        }
        progress(1, "done")
        if server == nil, serverPID != nil {
            notes.append("The server's CPU time is read from /proc/\(serverPID!)/stat, its memory from /proc/\(serverPID!)/status (VmRSS).")
        }
        var report = LoadReport(url: target.url, startedServer: server != nil, serverPID: serverPID,
                                photos: server != nil && table == nil ? configuration.photos : nil,
                                rate: configuration.rate, seconds: configuration.seconds, threads: System.coreCount,
                                rampLimitMilliseconds: configuration.ramp.isEmpty ? nil : configuration.rampLimitMilliseconds,
                                steps: steps, notes: notes)
        report.startSeconds = server?.startSeconds
        report.table = tableReport
        report.floorSteps = floorSteps
        return report
    }

    /// Runs the same client counts against the floor (``LoadFloorServer``,
    /// a child process of its own), whose plans are as long as the ones
    /// `tessera serve` sent on average.
    ///
    /// - Throws: ``LoadError`` when the floor does not start or its clients
    ///   cannot connect.
    private func measureFloor(
        counts: [Int], after steps: [LoadStepReport], largest: Int, group: MultiThreadedEventLoopGroup, folder: LoadScratchFolder,
        progress: @escaping (Double, String) -> Void
    ) throws(LoadError) -> [LoadStepReport] {
        let plans = steps.reduce(0) { $0 + $1.plans }
        let planBytes = plans > 0 ? steps.reduce(0) { $0 + $1.planBytes } / plans : 1_000
        progress(0, "starting the floor (plans of \(planBytes) bytes)")
        let floor = try LoadServerProcess(
            executable: configuration.serverExecutable, command: ["bench", "floor-server"],
            arguments: ["--plan-bytes", String(planBytes), "--content-height", "1000000"],
            clients: largest + 16, folder: folder.url, timeout: 60
        )
        defer { floor.stop() }
        let target = LoadTarget(address: "127.0.0.1", port: floor.port, hostHeader: "127.0.0.1:\(floor.port)", path: "/live")
        var session = LoadSession(configuration: configuration, connector: LoadConnector(group: group, target: target), serverPID: floor.pid)
        defer { session.closeAll() }
        let before = LoadProcessSample.read(pid: floor.pid)
        try session.connectWriter(ids: nil)
        var floorSteps: [LoadStepReport] = []
        for (number, count) in counts.enumerated() {
            try session.connect(upTo: count) { done in
                progress(Double(number) / Double(counts.count), "the floor: connecting clients: \(done) of \(count)")
            }
            let connected = LoadProcessSample.read(pid: floor.pid)
            var step = session.measure { fraction, text in
                progress((Double(number) + fraction) / Double(counts.count), "the floor: " + text)
            }
            if configuration.isStopped() { throw LoadError.interrupted }
            if let before, let connected {
                step.residentBefore = before.residentBytes
                step.residentAfter = connected.residentBytes
            }
            floorSteps.append(step)
        }
        return floorSteps
    }
}

/// The connections of one run: the writer and the reading clients.
struct LoadSession {
    let configuration: LoadConfiguration
    let connector: LoadConnector
    let serverPID: Int32?
    var clients: [LoadClientRecord] = []
    var writer: LoadWriterRecord?
    var random: SplitMix64
    /// The next request number.
    var request = 0
    /// The writer's last change before the step began.
    var changesBefore = 0
    /// A word of this run's own in every title the writer sets: a rename
    /// to the title an item already has changes nothing (and has no plan),
    /// so the titles of two runs against one table (one after the other,
    /// or several generators at once against servers of one database)
    /// must differ.
    let runTag = String(UInt32.random(in: 0...UInt32.max), radix: 16)

    init(configuration: LoadConfiguration, connector: LoadConnector, serverPID: Int32?) {
        self.configuration = configuration
        self.connector = connector
        self.serverPID = serverPID
        self.random = SplitMix64(seed: configuration.seed)
    }

    /// The viewports' sizes: a phone, a tablet upright and across, a laptop.
    static let sizes: [(width: Double, height: Double)] = [(390, 844), (768, 1_024), (1_024, 768), (1_440, 900)]
    /// The layouts, taken in turn.
    static let layouts = ["flow", "list", "column"]

    /// Connects the writer and waits for its snapshot; with `ids`, the
    /// writer renames those and asks the server for none.
    mutating func connectWriter(ids: [String]?) throws(LoadError) {
        let loop = connector.group.next()
        let record = LoadWriterRecord(ready: loop.makePromise(), ids: ids)
        writer = record
        let channel = connector.connect(makeHandler: { LoadWriterHandler(record: record) }, onFailure: { reason in
            record.ready.fail(LoadError("the writer: \(reason)"))
        })
        channel.whenSuccess { channel in record.channel.withLock { $0 = channel } }
        let url = connector.target.url
        channel.whenFailure { error in record.ready.fail(LoadError("cannot connect to \(url): \(LoadRun.reason(error))")) }
        loop.scheduleTask(in: .seconds(LoadRun.readyTimeout)) {
            record.ready.fail(LoadError("the writer got no snapshot within \(LoadRun.readyTimeout) s"))
        }
        do {
            try record.ready.futureResult.wait()
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError("the writer: \(error)")
        }
    }

    /// Connects clients until there are `count`, each with its own layout
    /// and viewport, at most ``LoadRun/connectWindow`` at once; returns once
    /// each has the elements of its viewport.
    mutating func connect(upTo count: Int, progress: (Int) -> Void) throws(LoadError) {
        while clients.count < count {
            let batch = min(LoadRun.connectWindow, count - clients.count)
            var futures: [EventLoopFuture<Void>] = []
            for _ in 0..<batch {
                let index = clients.count
                let loop = connector.group.next()
                let size = Self.sizes[Int(random.next() % UInt64(Self.sizes.count))]
                let record = LoadClientRecord(index: index, layout: Self.layouts[index % Self.layouts.count], size: size,
                                              scrollFraction: Double(random.next() >> 11) / Double(1 << 53), ready: loop.makePromise())
                clients.append(record)
                let channel = connector.connect(makeHandler: { LoadClientHandler(record: record) }, onFailure: { reason in record.fail(reason) })
                channel.whenSuccess { channel in record.channel.withLock { $0 = channel } }
                channel.whenFailure { error in record.fail("cannot connect: \(LoadRun.reason(error))") }
                loop.scheduleTask(in: .seconds(LoadRun.readyTimeout)) {
                    record.timeOut("no snapshot and elements within \(LoadRun.readyTimeout) s")
                }
                futures.append(record.ready.futureResult)
            }
            for future in futures {
                do {
                    try future.wait()
                } catch let error as LoadError {
                    throw LoadError("\(clients.count) clients of \(count) connected; \(error.message)")
                } catch {
                    throw LoadError("\(error)")
                }
            }
            progress(clients.count)
        }
    }

    /// Has the writer rename items for the configured time, waits for every
    /// plan, and reports the step.
    mutating func measure(progress: (Double, String) -> Void) -> LoadStepReport {
        guard let writer, let channel = writer.channel.withLock({ $0 }) else { return LoadStepReport(clients: clients.count) }
        for client in clients { client.stats.withLock { $0.receipts.removeAll(keepingCapacity: true) } }
        let ids = writer.stats.withLock { $0.ids }
        let startSeq = writer.stats.withLock { $0.lastSeq ?? 0 }
        let clientStart = clients.map { client in client.stats.withLock { $0 } }
        let edits = max(1, Int((configuration.seconds * configuration.rate).rounded()))
        let interval = 1 / configuration.rate
        let firstRequest = request
        let errorsBefore = writer.stats.withLock { $0.errors }
        writer.stats.withLock { stats in
            stats.sent.append(contentsOf: repeatElement(0, count: edits))
            stats.doneSeq.append(contentsOf: repeatElement(-1, count: edits))
        }
        let serverBefore = serverPID.flatMap(LoadProcessSample.read(pid:))
        let ownBefore = LoadProcessSample.ownCPUSeconds()
        let start = loadNow()
        for edit in 0..<edits {
            if configuration.isStopped() { break }
            let due = start + UInt64(Double(edit) * interval * 1e9)
            let now = loadNow()
            if due > now { usleep(useconds_t(min(1_000_000, (due - now) / 1_000))) }
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let number = request
            request += 1
            let text = #"{"type":"rename","request":\#(number),"id":"\#(LoadRun.escaped(id))","title":"Load \#(runTag) \#(number)"}"#
            let sent = loadNow()
            writer.stats.withLock { $0.sent[number] = sent }
            LoadWriterHandler.send(text, on: channel)
            if edit % max(1, Int(configuration.rate)) == 0 {
                progress(Double(edit) / Double(edits), "\(clients.count) clients, edit \(edit + 1) of \(edits)")
            }
        }
        let editsEnd = loadNow()
        // Drain: every rename answered (done or error), then every client
        // at the last change.
        let deadline = Date().addingTimeInterval(LoadRun.drainTimeout)
        var lastSeq = startSeq
        while Date() < deadline, !configuration.isStopped() {
            let (answered, seq) = writer.stats.withLock { stats in
                let unanswered = stats.doneSeq[firstRequest..<(firstRequest + edits)].lazy.filter { $0 < 0 }.count
                return (unanswered <= stats.errors - errorsBefore || stats.failure != nil, stats.lastSeq ?? 0)
            }
            lastSeq = seq
            if answered {
                let behind = clients.filter { client in client.stats.withLock { $0.failure == nil && ($0.seq ?? 0) < seq } }.count
                if behind == 0 { break }
                progress(1, "waiting for \(behind) clients to reach change \(seq)")
            }
            usleep(10_000)
        }
        let end = loadNow()
        let serverAfter = serverPID.flatMap(LoadProcessSample.read(pid:))
        let ownAfter = LoadProcessSample.ownCPUSeconds()
        let wall = Double(end - start) / 1e9

        var step = LoadStepReport(clients: clients.count)
        step.edits = edits
        step.editSeconds = Double(editsEnd - start) / 1e9
        step.wallSeconds = wall
        let writerStats = writer.stats.withLock { $0 }
        step.done = writerStats.doneSeq[firstRequest..<(firstRequest + edits)].filter { $0 >= 0 }.count
        step.editErrors = writerStats.errors - errorsBefore
        step.lastEditError = writerStats.lastError
        step.writerFailure = writerStats.failure
        step.changes = max(0, lastSeq - startSeq)
        var latencies: [UInt64] = []
        latencies.reserveCapacity(clients.count * step.changes)
        for (index, client) in clients.enumerated() {
            let stats = client.stats.withLock { $0 }
            let was = clientStart[index]
            step.plans += stats.plans - was.plans
            step.planBytes += stats.planBytes - was.planBytes
            step.merged += stats.merged - was.merged
            step.lost += stats.lost - was.lost
            step.duplicated += stats.duplicated - was.duplicated
            step.outOfOrder += stats.outOfOrder - was.outOfOrder
            step.clientErrors += stats.errors - was.errors
            if stats.failure != nil {
                step.failedClients += 1
                if step.firstFailure == nil { step.firstFailure = "client \(client.index): \(stats.failure!)" }
            } else if let seq = stats.seq, seq < lastSeq {
                step.missingAtEnd += lastSeq - seq
            }
            for receipt in stats.receipts {
                if let sent = writerStats.sendTimeBySeq[receipt.firstChange] {
                    latencies.append(receipt.time &- sent)
                } else {
                    step.unattributed += 1
                }
            }
        }
        step.latency = LoadLatency(nanoseconds: &latencies)
        if let serverBefore, let serverAfter {
            step.serverCPU = (serverAfter.cpuSeconds - serverBefore.cpuSeconds) / wall
        }
        step.generatorCPU = (ownAfter - ownBefore) / wall
        changesBefore = lastSeq
        return step
    }

    /// Closes every connection and waits (briefly) for them to close.
    func closeAll() {
        var futures: [EventLoopFuture<Void>] = []
        let channels = clients.compactMap { client in client.channel.withLock { $0 } } + [writer?.channel.withLock { $0 }].compactMap { $0 }
        for client in clients { client.stats.withLock { $0.closed = true } }
        for channel in channels {
            futures.append(channel.close().recover { _ in })
        }
        for future in futures { try? future.wait() }
    }
}

extension LoadRun {
    /// A connection failure in a few words: the system's message for its
    /// errno when there is one ("Connection refused").
    static func reason(_ error: any Error) -> String {
        var error = error
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first?.error { error = first }
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }

    /// `text` as the inside of a JSON string.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
