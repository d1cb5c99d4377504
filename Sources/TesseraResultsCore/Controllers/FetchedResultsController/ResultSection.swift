
/// A section of a fetched result: the value of the section key its rows
/// share.
///
/// A ``FetchedResultsController``'s ``FetchedResultsController/snapshot``
/// is a `Snapshot<ResultSection, Record>`, with one section per distinct
/// value of the request's ``FetchRequest/sectionKey``, in the order of the
/// first sort key. A section exists only while it has rows. Rows whose
/// section key is NULL share a section whose value is `.null`; a request
/// without a section key has one such section, or none when the result is
/// empty.
///
/// ```swift
/// for section in controller.sections {
///     print(section.value.string ?? "No album")   // .text("Holidays") prints Holidays
/// }
/// let holidays = controller.snapshot.index(ofSectionWithID: .text("Holidays"))
/// ```
///
/// The value is the section's identity and its whole content, so a section
/// is never updated: a row whose section key changes moves to another
/// section, a section is deleted when its last row leaves and inserted
/// when its first row arrives.
public struct ResultSection: Identifiable, Hashable, Sendable {
    /// The section key's value.
    public var value: DatabaseValue
    /// The value identifies the section.
    public var id: DatabaseValue { value }

    /// Creates a section.
    public init(value: DatabaseValue) {
        self.value = value
    }
}

/// What happened to a section or a record in a change report.
public enum ResultsChangeType: String, Hashable, Sendable {
    case insert, delete, move, update
}
