import Foundation
import NIOCore

/// The measurements `tessera bench serve --rows` makes one change at a time,
/// before the load: a `hello`'s first snapshot, another process's commit
/// and a rename, each until its plan reached every reading client.
///
/// Like the rest of the run, they block the calling thread (waiting on
/// event loop futures and polling the clients' state): never call them
/// from async code.
extension LoadSession {
    /// How long one change may take to reach every client, in seconds
    /// (a million rows without a change log take seconds per commit).
    static let probeTimeout = 300.0

    /// Connects `count` clients one after the other, each closed once it
    /// has its snapshot and elements, and measures the time from each
    /// one's `hello` to its `snapshot`; also returns when the first
    /// snapshot arrived (monotonic nanoseconds).
    ///
    /// - Throws: ``LoadError`` when one cannot connect.
    /// - Complexity: O(`count`) connections, one at a time.
    func sequentialSnapshots(count: Int) throws(LoadError) -> (latency: LoadLatency?, firstArrival: UInt64?) {
        var times: [UInt64] = []
        var firstArrival: UInt64?
        for number in 0..<count {
            let loop = connector.group.next()
            let record = LoadClientRecord(index: number, layout: "list", size: (1_024, 768), scrollFraction: 0, ready: loop.makePromise())
            let channel = connector.connect(makeHandler: { LoadClientHandler(record: record) }, onFailure: { reason in record.fail(reason) })
            channel.whenSuccess { channel in record.channel.withLock { $0 = channel } }
            channel.whenFailure { error in record.fail("cannot connect: \(LoadRun.reason(error))") }
            loop.scheduleTask(in: .seconds(LoadRun.readyTimeout)) {
                record.timeOut("no snapshot and elements within \(LoadRun.readyTimeout) s")
            }
            do {
                try record.ready.futureResult.wait()
            } catch {
                throw LoadError("hello \(number + 1) of \(count), one at a time: \((error as? LoadError)?.message ?? "\(error)")")
            }
            let stats = record.stats.withLock { stats in
                stats.closed = true
                return stats
            }
            if let sent = stats.helloSent, let arrived = stats.snapshotArrived {
                times.append(arrived &- sent)
                if firstArrival == nil { firstArrival = arrived }
            }
            if let open = record.channel.withLock({ $0 }) { try? open.close().wait() }
        }
        return (LoadLatency(nanoseconds: &times), firstArrival)
    }

    /// The time from `hello` to `snapshot` over the connected reading
    /// clients.
    ///
    /// - Complexity: O(*c* log *c*) for *c* clients.
    func clientSnapshots() -> LoadLatency? {
        var times = clients.compactMap { client in
            client.stats.withLock { stats in stats.snapshotArrived.flatMap { arrived in stats.helloSent.map { arrived &- $0 } } }
        }
        return LoadLatency(nanoseconds: &times)
    }

    /// Commits `count` one-row updates through `writer` (this process's own
    /// connection to the file), one at a time: each is awaited in every
    /// reading client before the next. `afterTen` runs once the tenth has
    /// reached them all.
    ///
    /// - Throws: ``LoadError`` when a commit fails, a client's connection
    ///   ends, or a change does not reach every client within
    ///   ``probeTimeout``.
    /// - Complexity: O(`count` · *c*) for *c* clients, plus the server's
    ///   work.
    func probeCommits(writer: LoadTableWriter, count: Int, afterTen: () -> Void) throws(LoadError) -> LoadChangeProbe {
        let before = startProbe()
        var started: [(seq: Int, time: UInt64)] = []
        for number in 0..<count {
            let seq = currentSeq() + 1
            try writer.commit(number: number)
            let committed = loadNow()
            try awaitClients(reaching: seq, what: "commit \(number + 1) of \(count) by this process")
            started.append((seq, committed))
            if number + 1 == 10 { afterTen() }
        }
        return endProbe(before: before, changes: started)
    }

    /// Has the writer send `count` renames through the protocol, one at a
    /// time: each is awaited (its `done`, then its plan in every reading
    /// client) before the next.
    ///
    /// - Throws: ``LoadError`` when the server refuses a rename, a
    ///   connection ends, or a change does not reach every client within
    ///   ``probeTimeout``.
    /// - Complexity: O(`count` · *c*) for *c* clients, plus the server's
    ///   work.
    mutating func probeRenames(count: Int) throws(LoadError) -> LoadChangeProbe {
        guard let writer, let channel = writer.channel.withLock({ $0 }) else { throw LoadError("the writer is not connected") }
        let ids = writer.stats.withLock { $0.ids }
        let before = startProbe()
        var started: [(seq: Int, time: UInt64)] = []
        for number in 0..<count {
            let request = self.request
            self.request += 1
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let errors = writer.stats.withLock { stats in
                stats.sent.append(0)
                stats.doneSeq.append(-1)
                return stats.errors
            }
            let text = #"{"type":"rename","request":\#(request),"id":"\#(LoadRun.escaped(id))","title":"Probe \#(number)"}"#
            let sent = loadNow()
            writer.stats.withLock { $0.sent[request] = sent }
            LoadWriterHandler.send(text, on: channel)
            let what = "rename \(number + 1) of \(count) through the protocol"
            let seq = try awaitCondition(what: what) { () throws(LoadError) -> Int? in
                let (seq, errorsNow, lastError, failure) = writer.stats.withLock { ($0.doneSeq[request], $0.errors, $0.lastError, $0.failure) }
                if seq >= 0 { return seq }
                if errorsNow > errors { throw LoadError("\(what): the server answered \(lastError ?? "an error")") }
                if let failure { throw LoadError("\(what): \(failure)") }
                return nil
            }
            try awaitClients(reaching: seq, what: what)
            started.append((seq, sent))
        }
        return endProbe(before: before, changes: started)
    }

    /// The reading clients' counts before a probe, with their receipts
    /// cleared.
    private func startProbe() -> [LoadClientStats] {
        clients.map { client in
            client.stats.withLock { stats in
                stats.receipts.removeAll(keepingCapacity: true)
                return stats
            }
        }
    }

    /// The latest change any reading client has.
    private func currentSeq() -> Int {
        clients.map { client in client.stats.withLock { $0.seq ?? 0 } }.max() ?? 0
    }

    /// Waits until every reading client has change `seq`.
    private func awaitClients(reaching seq: Int, what: String) throws(LoadError) {
        let clients = self.clients
        _ = try awaitCondition(what: what) { () throws(LoadError) -> Bool? in
            var behind = 0
            for client in clients {
                let (have, failure) = client.stats.withLock { ($0.seq ?? 0, $0.failure) }
                if let failure { throw LoadError("\(what): client \(client.index): \(failure)") }
                if have < seq { behind += 1 }
            }
            return behind == 0 ? true : nil
        }
    }

    /// Polls `check` (every millisecond) until it returns a value, for at
    /// most ``probeTimeout`` seconds. The times measured are taken where
    /// the messages arrive, not here.
    private func awaitCondition<T>(what: String, _ check: () throws(LoadError) -> T?) throws(LoadError) -> T {
        let deadline = loadNow() + UInt64(Self.probeTimeout * 1e9)
        while true {
            if let value = try check() { return value }
            if configuration.isStopped() { throw LoadError.interrupted }
            guard loadNow() < deadline else {
                throw LoadError("\(what): not in every client within \(Int(Self.probeTimeout)) s")
            }
            usleep(1_000)
        }
    }

    /// The probe's figures: each change's plan in each client, from the
    /// change's start.
    private func endProbe(before: [LoadClientStats], changes: [(seq: Int, time: UInt64)]) -> LoadChangeProbe {
        var probe = LoadChangeProbe()
        probe.changes = changes.count
        probe.clients = clients.count
        var last = Array(repeating: UInt64(0), count: changes.count)
        var perClient: [UInt64] = []
        for (index, client) in clients.enumerated() {
            let stats = client.stats.withLock { $0 }
            let was = before[index]
            probe.merged += stats.merged - was.merged
            probe.lost += stats.lost - was.lost
            probe.duplicated += stats.duplicated - was.duplicated
            var arrival: [Int: UInt64] = [:]
            for receipt in stats.receipts { arrival[receipt.firstChange] = receipt.time }
            for (number, change) in changes.enumerated() {
                guard let time = arrival[change.seq] else { continue }
                // A plan read before the commit's call returned counts as 0.
                let latency = time > change.time ? time - change.time : 0
                probe.plans += 1
                perClient.append(latency)
                last[number] = Swift.max(last[number], latency)
            }
        }
        probe.perClient = LoadLatency(nanoseconds: &perClient)
        if !clients.isEmpty { probe.lastClient = LoadLatency(nanoseconds: &last) }
        return probe
    }
}
