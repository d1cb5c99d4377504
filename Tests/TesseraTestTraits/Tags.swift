import Testing

/// The tags that sort the suites by what they need and what they cost, so
/// that a run can pick them: Xcode and VS Code filter by them; the `swift
/// test` of Swift 6.3 filters by test name only, so `.ci/sanitizers` names
/// the suites of the tags where each sanitizer can find something (see
/// CONTRIBUTING.md).
extension Tag {
    /// Talks to a real PostgreSQL server (`TESSERA_POSTGRES_URL`, or a
    /// cluster the test support starts from `TESSERA_POSTGRES_BIN`).
    @Tag public static var postgres: Self

    /// Drives headless Chromium over its DevTools protocol.
    @Tag public static var browser: Self

    /// Runs a child process (the built `tessera`, `sqlite3`) and reads its
    /// output.
    @Tag public static var process: Self

    /// A seeded random oracle: many rounds of generated changes, each
    /// compared with a fresh answer (a query, a brute-force filter, a
    /// replayed changeset).
    @Tag public static var oracle: Self
}
