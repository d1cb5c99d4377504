/// A controller that follows a store's commits through its
/// ``CommitDelivery``.
protocol _CommitFollowing: AnyObject {
    /// The store it reads.
    var store: any ResultsStore { get }
    /// Where its commits are handed over.
    var delivery: CommitDelivery { get }
    /// Applies committed changes and reports them.
    func apply(_ changes: CommittedChanges, from reader: any StoreReader)
    /// Notes a failure to apply changes and tells the delegate.
    func fail(_ error: ResultsError)
    /// The last failure to follow the store; `nil` once following succeeds.
    var lastError: ResultsError? { get }
}

/// A controller's side of its ``CommitDelivery``: an object of its own,
/// internal to the module, so that nothing outside can hand the controller
/// a commit.
final class _Receiver<Controller: _CommitFollowing>: CommitReceiver {
    unowned let controller: Controller

    init(_ controller: Controller) {
        self.controller = controller
    }

    func receive(_ changes: CommittedChanges, from reader: any StoreReader) {
        controller.apply(changes, from: reader)
    }

    func takeWaitingChanges(isolation: isolated (any Actor)?) {
        let controller = controller
        let delivery = controller.delivery
        do throws(ResultsError) {
            try controller.store.withReader(isolation: isolation) { reader throws(ResultsError) in
                if let changes = delivery.takeWaiting() { controller.apply(changes, from: reader) }
            }
        } catch {
            // The store could not be read (a damaged file, a cancelled
            // task): what waited is fetched again with the next commit.
            delivery.deferAsRefetch()
            controller.fail(error)
        }
    }
}
