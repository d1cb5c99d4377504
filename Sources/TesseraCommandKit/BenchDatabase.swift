/// Snapshots of a table before and after a change script (placeholder until the database mode lands).
package struct BenchDatabase: Sendable {
    package var path: String; package var table: String; package var sort: [String]
    package var section: String?; package var scriptPath: String
    package init(path: String, table: String, sort: [String], section: String?, scriptPath: String) {
        self.path = path; self.table = table; self.sort = sort; self.section = section; self.scriptPath = scriptPath
    }
    package func snapshots() throws(CommandError) -> BenchInput { throw CommandError("not built yet") }
}
