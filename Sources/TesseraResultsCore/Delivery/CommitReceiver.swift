/// A controller's side of the seam: takes committed changes and reports
/// them, always in the controller's isolation.
package protocol CommitReceiver: AnyObject {
    /// Applies committed changes (one transaction's, or several merged)
    /// and reports them. Called in the controller's isolation, inside
    /// a read of the store's state just after them.
    func receive(_ changes: CommittedChanges, from reader: any StoreReader)

    /// Takes the changes that waited for the controller's isolation (see
    /// ``CommitDelivery``) and reports them. Called on that isolation.
    func takeWaitingChanges(isolation: isolated (any Actor)?)
}
