import TesseraLiveHub
import TesseraLiveProtocol

extension LiveList {
    /// Checks what a list is opened with that the table does not decide:
    /// the limits and the edit token.
    ///
    /// - Throws: ``LiveListError`` naming the limit and the values it may
    ///   take, or an empty edit token (which any `?token=` would give).
    package static func check(_ limits: Limits, _ access: Access) throws(LiveListError) {
        if access.editToken == "" {
            throw LiveListError("an empty edit token: a client with ?token= and nothing after it would edit; give a token, or nil to let every client edit")
        }
        guard Limits.maximumClientsRange.contains(limits.maximumClients) else {
            throw LiveListError("maximumClients \(limits.maximumClients): it must be from \(Limits.maximumClientsRange.lowerBound) to \(Limits.maximumClientsRange.upperBound)")
        }
        guard limits.maximumMessageBytes >= 1 else {
            throw LiveListError("maximumMessageBytes \(limits.maximumMessageBytes): it must be at least 1")
        }
        guard limits.messagesPerSecond.isFinite, limits.messagesPerSecond > 0 else {
            throw LiveListError("messagesPerSecond \(limits.messagesPerSecond): it must be a positive number")
        }
        guard limits.messageBurst.isFinite, limits.messageBurst >= 1 else {
            throw LiveListError("messageBurst \(limits.messageBurst): it must be at least 1 (below, no message is ever let through)")
        }
    }
}
