// swift-tools-version: 6.1
import PackageDescription

// Tessera's libFuzzer targets (see README.md), in a package of their own
// like the benchmarks: libFuzzer supplies their entry point, so they build
// only with `-sanitize=fuzzer`, which `Fuzz/run` passes. Their checks
// (TesseraFuzzChecks) live in the root package, built and run over the
// committed corpora by `swift test` there, and reach this package through
// the root's `_TesseraFuzzChecks` product.
let targets = ["FuzzDiff", "FuzzBatch", "FuzzLayout", "FuzzCollation", "FuzzDocument"]

let package = Package(
    name: "TesseraFuzz",
    products: targets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "Tessera", path: ".."),
    ],
    targets: targets.map {
        .executableTarget(
            name: $0,
            dependencies: [.product(name: "_TesseraFuzzChecks", package: "Tessera")],
            path: "Targets/\($0)"
        )
    },
    swiftLanguageModes: [.v6]
)
