import Testing
@testable import TesseraResults
@testable import TesseraResultsCore
@testable import TesseraResultsSQLite
import TesseraSQLite
import TesseraTestTraits

// No store: the delivery alone, with a receiver that notes what it gets.

/// A receiver that notes what it is handed, and can fail to read the store
/// once (as a home job whose read fails does).
final class RecordingReceiver: CommitReceiver {
    var delivery: CommitDelivery?
    var received: [CommittedChanges] = []
    var jobs = 0
    var failNextJob = false

    func receive(_ changes: CommittedChanges, from reader: any StoreReader) {
        received.append(changes)
    }

    func takeWaitingChanges(isolation: isolated (any Actor)?) {
        jobs += 1
        guard let delivery else { return }
        if failNextJob {
            failNextJob = false
            delivery.deferAsRefetch()
            return
        }
        if let changes = delivery.takeWaiting() { received.append(changes) }
    }
}

/// An actor that is a delivery's home.
actor DeliveryHome {
    let receiver = RecordingReceiver()
    let delivery: CommitDelivery

    init() {
        delivery = CommitDelivery(to: receiver)
        receiver.delivery = delivery
    }

    func becomeHome() { delivery.setHome(self) }
    /// Runs `body` on the home: no job of the home runs meanwhile.
    func whileBusy(_ body: @Sendable () -> Void) { body() }
    func failNextJob() { receiver.failNextJob = true }
    var jobs: Int { receiver.jobs }
    var received: [CommittedChanges] { receiver.received }
}

@Suite("Commit delivery: where a commit's changes go, and when")
struct CommitDeliveryUnitTests {
    static func touched(_ keys: Int64...) -> CommittedChanges {
        CommittedChanges(touched: Dictionary(uniqueKeysWithValues: keys.map { (DatabaseValue.integer($0), [DatabaseValue]?.none) }))
    }

    /// Waits until `done` holds, for 150,000 rounds of at least 2 ms (five
    /// minutes at the least); bounded in rounds, never by a clock.
    static func eventually(_ done: () async -> Bool) async throws -> Bool {
        try await waitInRounds(150_000, every: .milliseconds(2), until: done)
    }

    @Test("Without an actor home every commit is taken at once; with one, only a commit made on it")
    func canDeliverNow() async {
        let home = DeliveryHome()
        #expect(home.delivery.canDeliverNow(runningIn: []), "no home yet: at once")
        #expect(home.delivery.canDeliverNow(runningIn: [nil]))
        await home.becomeHome()
        #expect(!home.delivery.canDeliverNow(runningIn: [nil]), "from no actor: later, on the home")
        #expect(!home.delivery.canDeliverNow(runningIn: [MainActor.shared]))
        #expect(home.delivery.canDeliverNow(runningIn: [nil, home, nil]), "a call on the home is somewhere on the stack")
    }

    @Test("Commits that wait are merged and taken by one job on the home")
    func waitingCommitsMerge() async throws {
        let home = DeliveryHome()
        await home.becomeHome()
        // Both made while the home is busy: the job the first schedules
        // cannot run before the second merges into what waits.
        await home.whileBusy {
            home.delivery.deliverLater(Self.touched(1, 2))
            home.delivery.deliverLater(Self.touched(2, 3))
        }
        #expect(try await Self.eventually { await home.received.count >= 1 })
        let received = await home.received
        #expect(Set(received.first?.touched.keys.map { $0 } ?? []) == [1, 2, 3])
        // A fence rather than a pause: one more commit, scheduled after
        // both, is taken by a job of its own; a second job for the first
        // two would have been scheduled before it, so once it has run,
        // every job for them has.
        home.delivery.deliverLater(Self.touched(4))
        #expect(try await Self.eventually { await home.received.count == 2 })
        #expect(await home.jobs == 2, "one job for both, and one for the commit after them")
    }

    @Test("A job that cannot read the store keeps what waited as a re-fetch, and the next commit schedules a job again")
    func failedJobDefersARefetch() async throws {
        let home = DeliveryHome()
        await home.becomeHome()
        await home.failNextJob()
        home.delivery.deliverLater(Self.touched(1))
        #expect(try await Self.eventually { await home.jobs == 1 })
        #expect(await home.received.isEmpty)
        home.delivery.deliverLater(Self.touched(2))
        #expect(try await Self.eventually { await home.received.count == 1 })
        #expect(await home.received.first?.mustRefetch == true, "what the failed job left is fetched again")
    }

    @Test("A commit taken at once takes what waited with it")
    func deliverNowTakesWaiting() async throws {
        let home = DeliveryHome()
        home.delivery.deliverLater(Self.touched(1))   // no home yet: nothing is scheduled
        home.delivery.deliverNow(Self.touched(2), from: NoReader())
        #expect(await home.received.count == 1)
        #expect(Set(await home.received.first?.touched.keys.map { $0 } ?? []) == [1, 2])
        #expect(await home.jobs == 0)
    }
}

/// A store reader that is never read.
struct NoReader: StoreReader {
    func externalVersion() throws(ResultsError) -> Int64? { nil }
    func query(for request: FetchRequest) throws(ResultsError) -> any RowReader { throw .cancelled }
    func query(for request: SetRequest) throws(ResultsError) -> any RowReader { throw .cancelled }
    func queries(for parents: ParentRequest, _ children: ChildRequest) throws(ResultsError) -> (parents: any RowReader, children: any RowReader) { throw .cancelled }
    func follow(_ readers: [any RowReader], tuples: Bool, delivery: CommitDelivery, replacing previous: (any ChangeSource)?) -> any ChangeSource {
        NoSource()
    }
}

final class NoSource: ChangeSource {
    func cancel() {}
}
