/// The version of Tessera this module was built from, as the newest
/// release in CHANGELOG.md names it (`Tessera.version`, written with the
/// module's name, when another module has a `version` of its own).
///
/// ```swift
/// print("Tessera", Tessera.version)   // Tessera 0.9.0
/// ```
public let version = "0.9.0"
