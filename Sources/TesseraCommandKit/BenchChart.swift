package enum BenchChart {
    package struct Point: Sendable, Hashable { package var size: Int; package var seconds: Double; package init(size: Int, seconds: Double) { self.size = size; self.seconds = seconds } }
    package struct Series: Sendable { package var method: String; package var points: [Point]; package var exponent: Double?
        package init(method: String, points: [Point], exponent: Double?) { self.method = method; self.points = points; self.exponent = exponent } }
    package static func machineDescription() -> String { "" }
    package static func html(title: String, machine: String, commandLine: String, series: [Series], notes: [String]) -> String { "" }
}
