import TesseraLiveProtocol
import TesseraResults

/// One change on its way to every group: the controller's report, the
/// `seq` it becomes, and what every group and client shares of it.
package final class ServeChange {
    /// The report.
    package let report: ChangeReport<ServeRecord>
    /// The change's number.
    package let seq: Int
    /// The updated items' frames per group, for the clients it leaves
    /// unchanged.
    package let updatedFrames: ServeUpdatedFrames
    /// The new list's sections as plans write them, once written.
    private var sectionsText: String?

    /// The change `seq`, made of `report`.
    package init(report: ChangeReport<ServeRecord>, seq: Int) {
        self.report = report
        self.seq = seq
        updatedFrames = ServeUpdatedFrames(report.changeset)
    }

    /// The new list's sections, written by `write` the first time a plan
    /// asks and shared by every plan of the change.
    ///
    /// - Complexity: O(1) after the first call.
    package func sections(_ write: (FetchedResult<ServeRecord>) -> String) -> String {
        if let sectionsText { return sectionsText }
        let text = write(report.new)
        sectionsText = text
        return text
    }
}

@available(*, unavailable)
extension ServeChange: Sendable {}

/// What makes two clients' plans of one change the same text: the same
/// viewport of the same group, the same animation, and whether the
/// changeset is written.
package struct ServePlanTextKey: Hashable {
    /// The viewport's index among the group's distinct viewports.
    package var viewport: Int
    /// Whether the plan animates.
    package var animated: Bool
    /// Whether the client asked for ids.
    package var ids: Bool
}
