// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for Tessera, measured with ordo-one's `benchmark` package.
//
// A separate package, so that the root package does not depend on the
// benchmark tooling. Each benchmark target lives in its own directory next to
// this file (the benchmark plugin finds targets whose parent directory is
// named `Benchmarks`). Run from the repository root with
// `swift package --package-path Benchmarks benchmark`; see README.md.
let package = Package(
    name: "TesseraBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Tessera", path: ".."),
        // The malloc interposer backs the malloc counts. ARC is not measured,
        // so the default `RuntimeInterposer` trait (and the package it pulls
        // in) is left out.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // The peer for the results benchmarks; benchmarks only.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The PostgreSQL benchmarks' writer and their floor and peer.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "BenchmarkSupport", path: "BenchmarkSupport"),
        .executableTarget(
            name: "DiffBenchmarks",
            dependencies: [
                .product(name: "TesseraDiff", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                "BenchmarkSupport",
            ],
            path: "DiffBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "LayoutBenchmarks",
            dependencies: [
                .product(name: "TesseraLayout", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "LayoutBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ViewBenchmarks",
            dependencies: [
                .product(name: "TesseraView", package: "Tessera"),
                .product(name: "TesseraLayout", package: "Tessera"),
                .product(name: "TesseraDiff", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "ViewBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ResultsBenchmarks",
            dependencies: [
                .product(name: "TesseraResults", package: "Tessera"),
                .product(name: "TesseraSQLite", package: "Tessera"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "ResultsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PipelineBenchmarks",
            dependencies: [
                .product(name: "Tessera", package: "Tessera"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "PipelineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "InteractionBenchmarks",
            dependencies: [
                .product(name: "TesseraView", package: "Tessera"),
                .product(name: "TesseraLayout", package: "Tessera"),
                .product(name: "TesseraDiff", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "InteractionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: [
                .product(name: "TesseraPostgres", package: "Tessera"),
                .product(name: "TesseraResults", package: "Tessera"),
                .product(name: "TesseraDiff", package: "Tessera"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Benchmark", package: "benchmark"),
                "PostgresBenchmarkSupport",
                "BenchmarkSupport",
            ],
            path: "PostgresBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Several processes following one list while a writer commits; not
        // an ordo-one benchmark (it runs processes of its own; see README.md),
        // so not in a folder whose parent is named `Benchmarks`, where the
        // benchmark plugin looks for its targets.
        .executableTarget(
            name: "PostgresFollowLoad",
            dependencies: [
                .product(name: "TesseraPostgres", package: "Tessera"),
                .product(name: "TesseraResults", package: "Tessera"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "PostgresBenchmarkSupport",
                "BenchmarkSupport",
            ],
            path: "Tools/PostgresFollowLoad"
        ),
        .target(
            name: "PostgresBenchmarkSupport",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"), "BenchmarkSupport",
                .product(name: "TesseraResults", package: "Tessera"),
            ],
            path: "PostgresBenchmarkSupport"
        ),
    ],
    swiftLanguageModes: [.v6]
)
