// Tessera's pipeline: a FetchedResultsController over the fixture, a
// CollectionView with the photo grid and a ResultsDataSource that performs
// each report's changeset as one batch. Fetched outside any actor, so a
// commit is reported on the committing thread before the write returns, and
// its plan is made in the delegate's callback.

import Benchmark
import Foundation
import Tessera
import TesseraLayout
import TesseraResults
import TesseraSQLite
import TesseraView

/// One commit's times, in microseconds.
struct CommitTimes {
    /// From the end of the commit to the report (Tessera: the delegate's
    /// did-change; the peer: the new value and its `OrderedSet` difference).
    var commitToReport: Int
    /// From the report to the animation plan (the data source's apply).
    var reportToPlan: Int
    var commitToPlan: Int { commitToReport + reportToPlan }
}

/// A connection, a controller, a view and its data source, from nothing to
/// the first screen.
final class TesseraPipeline {
    let connection: Connection
    let controller: FetchedResultsController<Photo>
    let view: CollectionView
    let source: ResultsDataSource<FetchedResult<Photo>>
    /// The commit probe and delegate, when the pipeline follows commits.
    private let follower: CommitFollower?
    /// The commits measured so far.
    private var commits = 0
    /// The jumps made so far.
    private var jumps = 0

    /// Opens the fixture, fetches, and shows the top of the result.
    ///
    /// - Parameters:
    ///   - fetchBatchSize: The request's batch size (0: eager).
    ///   - following: Whether to time commits (``measure(_:)``): a probe
    ///     that notes the end of each commit is registered before the
    ///     controller's own observer, and a delegate applies each report.
    init(path: String, fetchBatchSize: Int, following: Bool = false) throws {
        connection = try Connection(path: path)
        let follower = following ? CommitFollower() : nil
        if let follower { connection.withDatabase { db in db.add(transactionObserver: follower) } }
        controller = try FetchedResultsController<Photo>(connection: connection, request: photoRequest(fetchBatchSize: fetchBatchSize))
        try controller.performFetch()
        // Commits are timed with the keys loaded (the first would wait for
        // the rest of the load).
        if following { try controller.finishLoading() }
        view = CollectionView(layout: photoGrid(), size: viewport)
        source = ResultsDataSource(collectionView: view, result: controller.result)
        follower?.source = source
        controller.delegate = follower
        self.follower = follower
    }

    /// Reads the record of every visible item, as cells being filled in
    /// would, through the controller.
    ///
    /// - Returns: A checksum of what was read.
    func readVisibleRecords() -> Int {
        var checksum = 0
        for attributes in view.visibleElements where attributes.category == .cell {
            let photo = controller.object(at: attributes.indexPath)
            checksum &+= Int(photo.id) &+ photo.title.utf8.count
        }
        return checksum
    }

    /// Scrolls, without animation, to a screen around the middle of the
    /// content that no jump before has shown: each jump goes 50,000
    /// points (about two albums) further from the middle than the last
    /// one on its side, alternately above and below.
    func jumpToUnseenMiddle() {
        jumps += 1
        let step = (jumps + 1) / 2 * (jumps.isMultiple(of: 2) ? 1 : -1)
        let y = view.contentSize.height / 2 + Double(step) * 50_000
        blackHole(view.setBounds(Rect(origin: Point(x: 0, y: y), size: viewport), animated: false))
    }

    /// Commits one change and returns its times.
    ///
    /// - Precondition: the pipeline was made `following`.
    func measure(_ change: Change) throws -> CommitTimes {
        guard let follower else { preconditionFailure("a pipeline made without following commits") }
        commits += 1
        let plans = follower.plans
        try connection.write { [commits] db in try db.execute(change.sql(commits)) }
        precondition(follower.plans == plans + 1, "no plan for \(change)")
        precondition(controller.lastUpdateMethod == .incremental, "\(change) re-fetched")
        return follower.times
    }
}

/// Notes the end of each commit (as a transaction observer registered
/// before the controller's), then the report and the plan (as the
/// controller's delegate, applying the report to the data source).
final class CommitFollower: TesseraSQLite.TransactionObserver, FetchedResultsControllerDelegate {
    let observedTables: Set<String> = ["photo"]
    var source: ResultsDataSource<FetchedResult<Photo>>?
    private(set) var plans = 0
    private(set) var times = CommitTimes(commitToReport: 0, reportToPlan: 0)
    private var committed = ContinuousClock.now

    func database(_ database: TesseraSQLite.Database, willChange change: TesseraSQLite.Database.PreUpdate) {}
    func databaseDidCommit(_ database: TesseraSQLite.Database) { committed = .now }
    func databaseDidRollback(_ database: TesseraSQLite.Database) {}

    func controller(_ controller: FetchedResultsController<Photo>, didChangeContentWith report: ChangeReport<Photo>) {
        let reported = ContinuousClock.now
        guard let source else { return }
        let plan: AnimationPlan
        do {
            plan = try source.apply(report)
        } catch {
            fatalError("the report could not be applied: \(error)")
        }
        let planned = ContinuousClock.now
        blackHole(plan)
        times = CommitTimes(commitToReport: microseconds(committed, reported), reportToPlan: microseconds(reported, planned))
        plans += 1
    }

    func controller(_ controller: FetchedResultsController<Photo>, didFailWith error: ResultsError) {
        fatalError("the controller failed: \(error)")
    }
}

/// Whole microseconds between two instants.
func microseconds(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Int {
    let elapsed = (end - start).components
    return Int(elapsed.seconds) * 1_000_000 + Int(elapsed.attoseconds / 1_000_000_000_000)
}
