/// Why a live list could not start: a missing file, table or column, or a
/// configuration value out of range. Its description is one line that
/// names what and where.
package struct ServeError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The one-line message.
    package var message: String

    /// Creates an error with its message.
    package init(_ message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
