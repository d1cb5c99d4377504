// The peer pipeline: GRDB 7.10's ValueObservation tracking the same sorted
// fetch (full rows), each new value turned into an OrderedSet of ids and
// diffed with `difference(from:)` (the standard library's CollectionDifference,
// as swift-collections gives it), then shown by Tessera's DiffableDataSource
// (a snapshot by album, diffed and performed as one batch) on a
// CollectionView with the same layout. GRDB stays in this benchmark target.

import Benchmark
import Dispatch
import GRDB
import OrderedCollections
import Synchronization
import TesseraDiff
import TesseraLayout
import TesseraView

/// A photo, as GRDB reads it.
struct PeerPhoto: GRDB.FetchableRecord, Identifiable, Equatable, Sendable {
    var id: Int64
    var album: Int64
    var date: Double
    var title: String
    var width: Int64
    var height: Int64

    init(row: GRDB.Row) {
        id = row[0]
        album = row[1]
        date = row[2]
        title = row[3]
        width = row[4]
        height = row[5]
    }
}

/// An album: a section of the peer's snapshot.
struct PeerAlbum: Identifiable, Equatable, Sendable {
    var id: Int64
}

/// What the peer's delivery queue works on: the view, its data source,
/// the last value's ids, and the times of the last commit.
final class PeerScreen {
    let view = CollectionView(layout: photoGrid(), size: viewport)
    let source: DiffableDataSource<PeerAlbum, PeerPhoto>
    private(set) var ids: OrderedSet<Int64> = []
    private(set) var plans = 0
    var committed = ContinuousClock.now
    private(set) var times = CommitTimes(commitToReport: 0, reportToPlan: 0)

    init() {
        source = DiffableDataSource(collectionView: view)
    }

    /// Diffs a new value's ids against the last, then shows it.
    func receive(_ photos: [PeerPhoto]) {
        let newIDs = OrderedSet(photos.lazy.map(\.id))
        let difference = newIDs.difference(from: ids)
        ids = newIDs
        precondition(plans == 0 || !difference.isEmpty, "a value without a change")
        let reported = ContinuousClock.now
        let plan: AnimationPlan
        do {
            plan = try source.apply(Self.snapshot(photos))
        } catch {
            fatalError("the peer's snapshot could not be applied: \(error)")
        }
        let planned = ContinuousClock.now
        blackHole(plan)
        times = CommitTimes(commitToReport: microseconds(committed, reported), reportToPlan: microseconds(reported, planned))
        plans += 1
    }

    /// The rows, sorted by album then date, as a snapshot by album.
    static func snapshot(_ photos: [PeerPhoto]) -> Snapshot<PeerAlbum, PeerPhoto> {
        var snapshot = Snapshot<PeerAlbum, PeerPhoto>()
        var start = photos.startIndex
        while start < photos.endIndex {
            let album = photos[start].album
            var end = start + 1
            while end < photos.endIndex, photos[end].album == album { end += 1 }
            snapshot.appendSection(PeerAlbum(id: album), items: photos[start..<end])
            start = end
        }
        return snapshot
    }

    /// Reads the item of every visible cell from the data source's
    /// snapshot.
    ///
    /// - Returns: A checksum of what was read.
    func readVisibleRecords() -> Int {
        var checksum = 0
        for attributes in view.visibleElements where attributes.category == .cell {
            let photo = source.snapshot[attributes.indexPath]
            checksum &+= Int(photo.id) &+ photo.title.utf8.count
        }
        return checksum
    }
}

/// Where GRDB delivers: the screen, behind a lock, and a semaphore the
/// benchmark waits on for each value.
final class PeerDelivery: Sendable {
    /// Guards the screen: the delivery queue works on it, the commit probe
    /// notes times in it on GRDB's writer queue, the benchmark reads it
    /// after `delivered`.
    let screen: Mutex<PeerScreen>
    let delivered = DispatchSemaphore(value: 0)

    init() {
        screen = Mutex(PeerScreen())
    }

    /// The last commit's times.
    var times: CommitTimes { screen.withLock { $0.times } }
    /// The number of values shown.
    var plans: Int { screen.withLock { $0.plans } }
}

/// Notes the end of each commit, before the observation hears of it.
final class PeerCommitProbe: GRDB.TransactionObserver {
    let delivery: PeerDelivery
    init(_ delivery: PeerDelivery) { self.delivery = delivery }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: GRDB.Database) {
        let now = ContinuousClock.now
        delivery.screen.withLock { $0.committed = now }
    }
    func databaseDidRollback(_ db: GRDB.Database) {}
}

/// A database queue on the fixture, its observation and the screen it
/// feeds; made when the first value is shown.
final class PeerPipeline {
    let queue: DatabaseQueue
    let delivery = PeerDelivery()
    private let cancellable: AnyDatabaseCancellable
    /// The commits measured so far.
    private var commits = 0

    /// Opens the fixture, starts the observation and waits for its first
    /// value to be shown.
    ///
    /// - Parameter following: Whether to time commits (a probe that notes
    ///   the end of each commit, registered before the observation).
    init(path: String, following: Bool = false) throws {
        queue = try DatabaseQueue(path: path)
        let delivery = delivery
        if following { queue.add(transactionObserver: PeerCommitProbe(delivery), extent: .databaseLifetime) }
        let observation = ValueObservation.tracking { db in try PeerPhoto.fetchAll(db, sql: orderedSQL) }
        cancellable = observation.start(in: queue, scheduling: .async(onQueue: DispatchQueue(label: "peer delivery"))) { error in
            fatalError("the observation failed: \(error)")
        } onChange: { photos in
            delivery.screen.withLock { $0.receive(photos) }
            delivery.delivered.signal()
        }
        delivery.delivered.wait()
    }

    deinit { cancellable.cancel() }

    /// Reads the record of every visible item.
    func readVisibleRecords() -> Int {
        delivery.screen.withLock { $0.readVisibleRecords() }
    }

    /// Commits one change and returns its times, once its value is shown.
    func measure(_ change: Change) throws -> CommitTimes {
        commits += 1
        let plans = delivery.plans
        try queue.write { [commits] db in try db.execute(sql: change.sql(commits)) }
        delivery.delivered.wait()
        precondition(delivery.plans == plans + 1, "no plan for \(change)")
        return delivery.times
    }
}
