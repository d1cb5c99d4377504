// swift-tools-version: 6.1
import PackageDescription

/// Internal invariant checks (`_checkInvariants()`) are compiled into debug
/// builds, which is what `swift test` uses, and left out of release builds.
let internalChecks: [SwiftSetting] = [
    .define("TESSERA_INTERNAL_CHECKS", .when(configuration: .debug)),
]

let package = Package(
    name: "Tessera",
    products: [
        .library(name: "TesseraDiff", targets: ["TesseraDiff"]),
        .library(name: "TesseraLayout", targets: ["TesseraLayout"]),
        .library(name: "TesseraView", targets: ["TesseraView"]),
        .library(name: "TesseraSQLite", targets: ["TesseraSQLite"]),
        .library(name: "TesseraResultsCore", targets: ["TesseraResultsCore"]),
        .library(name: "TesseraResults", targets: ["TesseraResults"]),
        .library(name: "TesseraPostgres", targets: ["TesseraPostgres"]),
        .library(name: "Tessera", targets: ["Tessera"]),
        // The live list a Hummingbird application mounts (LiveList): the
        // one library product that depends on SwiftNIO and Hummingbird.
        .library(name: "TesseraServe", targets: ["TesseraServe"]),
        // A live list over PostgreSQL: `LiveList(postgres:…)`. Its own
        // product, so that TesseraServe's users over SQLite do not link
        // postgres-nio.
        .library(name: "TesseraServePostgres", targets: ["TesseraServePostgres"]),
        .executable(name: "tessera", targets: ["tessera"]),
        // The fuzz targets' checks, for the Fuzz package (Fuzz/README.md);
        // not API.
        .library(name: "_TesseraFuzzChecks", targets: ["TesseraFuzzChecks"]),
        // `tessera bench diff`'s allocation counter, preloaded by the
        // command into itself from beside the executable (see
        // Sources/tessera/AllocationCounter.swift); not for linking.
        .library(name: "TesseraAllocationCount", type: .dynamic, targets: ["CAllocationCount"]),
    ],
    // What the `tessera` command links beyond SQLite, each on by default.
    // `swift build --disable-default-traits --product tessera` builds the
    // command without them (the demo, `watch` of SQLite files, `diff`,
    // `render` and `bench diff`), leaving SwiftNIO, Hummingbird,
    // postgres-nio and BoringSSL unbuilt. The library products do not use
    // traits. The tests need both: `swift test` builds with the defaults.
    traits: [
        .trait(name: "LiveServer", description: "`tessera serve` and `tessera bench serve`: the live list in the browser, on Hummingbird and SwiftNIO."),
        .trait(name: "PostgreSQL", description: "`tessera watch postgres://…`: following a PostgreSQL table, through postgres-nio."),
        .default(enabledTraits: ["LiveServer", "PostgreSQL"]),
    ],
    dependencies: [
        // Only the `tessera` executable uses it; the library modules stay
        // free of dependencies.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Only TesseraPostgres (and TesseraCommandPostgres, the command's
        // part that follows PostgreSQL) uses it.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // SCRAM-SHA-256 and MD5 for the replication stream's own
        // connection (postgres-nio depends on it already).
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"6.0.0"),
        // Only the command uses it (`tessera bench diff` measures
        // OrderedSet's difference); postgres-nio already resolves it, so
        // the libraries carry nothing new.
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // Only TesseraServe (the live list of `tessera serve`) uses them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Only TesseraServe uses it directly (the WebSocket clients of
        // `tessera bench serve`); Hummingbird already resolves it.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // Only the live list uses them (the hub logs): a LiveList is a Service of the
        // application it is mounted in (Hummingbird already resolves both).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "TesseraDiff",
            swiftSettings: internalChecks
        ),
        .target(
            name: "TesseraLayout",
            dependencies: ["TesseraDiff"],
            swiftSettings: internalChecks
        ),
        .target(
            name: "TesseraView",
            dependencies: ["TesseraDiff", "TesseraLayout"],
            swiftSettings: internalChecks
        ),
        // The system SQLite: its header and library are on the default
        // paths once libsqlite3-dev is installed (.ci/run installs it).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The store-independent results controllers and their engine, the
        // store seam, and the values every store reads (DatabaseValue,
        // Row): no store, and no SQLite.
        .target(
            name: "TesseraResultsCore",
            dependencies: ["TesseraDiff"],
            swiftSettings: internalChecks
        ),
        // A Swift interface to the system SQLite (connections, statements,
        // transaction observers).
        .target(
            name: "TesseraSQLite",
            dependencies: ["CSQLite", "TesseraResultsCore"],
            swiftSettings: internalChecks
        ),
        // The SQLite store: the controllers over a connection.
        .target(
            name: "TesseraResultsSQLite",
            dependencies: ["TesseraResultsCore", "TesseraSQLite"],
            swiftSettings: internalChecks
        ),
        // The results controllers over SQLite: the core, the SQLite store
        // and the connection, in one import.
        .target(
            name: "TesseraResults",
            dependencies: ["TesseraDiff", "TesseraSQLite", "TesseraResultsCore", "TesseraResultsSQLite"],
            swiftSettings: internalChecks
        ),
        // The results controllers over PostgreSQL: the one library product
        // that depends on postgres-nio. It builds on the core alone: SQLite
        // is not linked.
        .target(
            name: "TesseraPostgres",
            dependencies: [
                "TesseraResultsCore", "TesseraDiff",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: internalChecks
        ),
        .target(
            name: "Tessera",
            dependencies: ["TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResults"]
        ),
        // What the command and the live server share: the plan JSON, the
        // change descriptions and the HTML player.
        .target(
            name: "TesseraRender",
            dependencies: ["TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite"]
        ),
        // The demos' made-up photos and the seeded generator behind them,
        // shared by `tessera demo`, the live list's demo library and the
        // load generator.
        .target(
            name: "TesseraDemoPhotos"
        ),
        // The `tessera` command: the work of each subcommand lives in
        // TesseraCommandKit (no argument parsing), so tests can call it too.
        .target(
            name: "TesseraCommandKit",
            dependencies: [
                "Tessera", "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResultsCore", "TesseraResults", "TesseraRender", "TesseraDemoPhotos",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // `tessera watch postgres://…`: the command's one part that links
        // postgres-nio, so that what else builds on TesseraCommandKit (the
        // fuzz checks) does not.
        .target(
            name: "TesseraCommandPostgres",
            dependencies: ["TesseraCommandKit", "TesseraRender", "TesseraResultsCore", "TesseraResults", "TesseraSQLite", "TesseraPostgres"]
        ),
        // Counts the heap allocations of `tessera bench diff`: it defines
        // malloc, so it is a library of its own, which that one command
        // preloads into itself (LD_PRELOAD); the executable does not link
        // it, and `tessera serve` never loads it.
        .target(
            name: "CAllocationCount"
        ),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraCommandKit",
                "TesseraResultsCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .target(name: "TesseraCommandPostgres", condition: .when(traits: ["PostgreSQL"])),
                .target(name: "TesseraServe", condition: .when(traits: ["LiveServer"])),
                .target(name: "TesseraLiveHub", condition: .when(traits: ["LiveServer"])),
                .target(name: "TesseraLiveProtocol", condition: .when(traits: ["LiveServer"])),
                .target(name: "TesseraLoad", condition: .when(traits: ["LiveServer"])),
                .target(name: "TesseraLivePostgres", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        // End-to-end tests run the built `tessera`; listing it here makes
        // `swift build --build-tests` and `swift test` build it first.
        .testTarget(
            name: "TesseraCommandTests",
            // TesseraPostgres for the sessions WatchPostgresTests write with.
            dependencies: ["TesseraCommandKit", "TesseraDemoPhotos", "TesseraRender", "tessera", "TesseraResultsCore", "TesseraView", "TesseraLayout", "TesseraDiff", "TesseraSQLite", "TesseraPostgres", "TesseraPostgresTestSupport", "TesseraTestTraits"],
            exclude: ["Fixtures"]
        ),
        // An example of a layout written only against TesseraLayout's public
        // API (see the "Writing your own layout" article).
        .target(
            name: "CalendarLayoutExample",
            dependencies: ["TesseraLayout"],
            path: "Examples/CalendarLayout/Sources/CalendarLayoutExample"
        ),
        .testTarget(
            name: "CalendarLayoutExampleTests",
            dependencies: ["CalendarLayoutExample", "TesseraLayout", "TesseraView", "TesseraDiff", "TesseraTestSupport", "TesseraTestTraits"],
            path: "Examples/CalendarLayout/Tests/CalendarLayoutExampleTests"
        ),
        .target(
            name: "TesseraTestSupport",
            dependencies: ["TesseraDiff", "TesseraLayout"],
            path: "Tests/TesseraTestSupport"
        ),
        // The traits the test targets share: `.ownThreads` runs a suite's
        // tests off the cooperative pool, for tests that block their thread;
        // `.cpuBound`, one per core, for synchronous tests that compute.
        .target(
            name: "TesseraTestTraits",
            path: "Tests/TesseraTestTraits"
        ),
        .testTarget(
            name: "TesseraDiffTests",
            dependencies: ["TesseraDiff", "TesseraTestSupport", "TesseraTestTraits"],
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "TesseraViewTests",
            dependencies: ["TesseraView", "TesseraLayout", "TesseraDiff", "TesseraTestSupport", "TesseraTestTraits"],
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "TesseraSQLiteTests",
            // CSQLite for the fault-injecting VFS of StorageFaultTests.
            dependencies: ["CSQLite", "TesseraSQLite", "TesseraResultsCore", "TesseraResults", "TesseraDiff", "TesseraTestSupport", "TesseraResultsTestSupport", "TesseraTestTraits"],
            swiftSettings: internalChecks
        ),
        // What the SQLite tests and the controller tests share: records,
        // and the stores the controller tests run against
        // (ResultsStoreFixture.all, one case per store: SQLite's, and
        // PostgreSQL's on the server TesseraPostgresTestSupport finds).
        .target(
            name: "TesseraResultsTestSupport",
            dependencies: ["TesseraResultsCore", "TesseraResults", "TesseraSQLite", "TesseraDiff", "TesseraTestSupport", "TesseraPostgres", "TesseraPostgresTestSupport", "TesseraTestTraits"],
            path: "Tests/TesseraResultsTestSupport"
        ),
        // How the PostgreSQL tests find or start their server (TestServer,
        // TestCluster), shared by the store's tests, the command's and the
        // controller tests' PostgreSQL case.
        .target(
            name: "TesseraPostgresTestSupport",
            dependencies: ["TesseraResultsCore", "TesseraTestTraits"],
            path: "Tests/TesseraPostgresTestSupport"
        ),
        // The controllers over a real PostgreSQL server (see
        // Tests/TesseraPostgresTestSupport/TestServer.swift for how the
        // tests find or start one).
        .testTarget(
            name: "TesseraPostgresTests",
            dependencies: [
                "TesseraPostgres", "TesseraResultsCore", "TesseraResults", "TesseraSQLite", "TesseraDiff", "TesseraTestSupport", "TesseraResultsTestSupport", "TesseraPostgresTestSupport", "TesseraTestTraits",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            exclude: ["README.md"],
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "TesseraResultsTests",
            dependencies: ["Tessera", "TesseraResultsCore", "TesseraResultsSQLite", "TesseraResults", "TesseraSQLite", "TesseraDiff", "TesseraTestSupport", "TesseraResultsTestSupport", "TesseraTestTraits"],
            swiftSettings: internalChecks
        ),
        // ResultsDataSource (module Tessera): the data source that drives a
        // collection view from a controller's reports, over every store of
        // the matrix.
        .testTarget(
            name: "TesseraTests",
            dependencies: ["Tessera", "TesseraResults", "TesseraDiff", "TesseraTestSupport", "TesseraResultsTestSupport", "TesseraTestTraits"],
            swiftSettings: internalChecks
        ),
        // Every sample of README.md and the DocC articles, compiled with
        // the import it states and run where it can be: the plugin writes
        // the tests' sources from their templates (*.swift.in), taking each
        // sample from its document, so a sample is written only there.
        .executableTarget(
            name: "DocumentationSampleGenerator",
            path: "Plugins/DocumentationSampleGenerator"
        ),
        .plugin(
            name: "DocumentationSamples",
            capability: .buildTool(),
            dependencies: ["DocumentationSampleGenerator"]
        ),
        .testTarget(
            name: "TesseraDocumentationTests",
            dependencies: [
                "Tessera", "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResults", "TesseraPostgres", "CalendarLayoutExample", "TesseraTestTraits",
                "TesseraServe", "TesseraServePostgres", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")],
            plugins: ["DocumentationSamples"]
        ),
        // The fuzz checks (see Fuzz/README.md): one oracle per fuzz
        // target, built with everything else so they cannot rot, and run
        // over the committed seed corpora by TesseraFuzzCorpusTests.
        .target(
            name: "TesseraFuzzChecks",
            dependencies: ["TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResults", "TesseraCommandKit", "TesseraRender", "TesseraTestSupport"],
            path: "Fuzz/Checks"
        ),
        .testTarget(
            name: "TesseraFuzzCorpusTests",
            dependencies: ["TesseraFuzzChecks", "TesseraTestTraits"],
            path: "Tests/TesseraFuzzCorpusTests"
        ),
        .testTarget(
            name: "TesseraLayoutTests",
            dependencies: ["TesseraLayout", "TesseraDiff", "TesseraTestSupport", "TesseraTestTraits"],
            // The IGListKit cases, read from the source tree (see its README).
            exclude: ["Fixtures"],
            swiftSettings: internalChecks
        ),
    // The live list, in three layers. The wire protocol: the clients'
    // messages parsed and bounded, and the server's written by one encoder.
    .target(
        name: "TesseraLiveProtocol",
        dependencies: [
            "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResultsCore", "TesseraResults", "TesseraRender",
        ]
    ),
    // The hub: the list's state, its layouts shared per kind and width,
    // every client's viewport and outbox, the edits. It knows nothing of
    // SwiftNIO: a transport attaches each client's socket to its outbox.
    .target(
        name: "TesseraLiveHub",
        dependencies: [
            "TesseraLiveProtocol", "TesseraDemoPhotos",
            "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResultsCore", "TesseraResults", "TesseraRender",
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // The live list over PostgreSQL: the hub's backend that reads and
    // follows a PostgresStore and writes the edits there. Its own module,
    // so that postgres-nio stays out of TesseraServe; `tessera serve
    // postgres://…` links it.
    .target(
        name: "TesseraLivePostgres",
        dependencies: ["TesseraLiveHub", "TesseraLiveProtocol", "TesseraPostgres", "TesseraResultsCore"]
    ),
    // The transport and the library product: a Hummingbird server (or a
    // router of the user's) whose WebSocket clients the hub serves, the
    // page, and `LiveList`, the public API. The only code that touches
    // channels and frames.
    .target(
        name: "TesseraServe",
        dependencies: [
            "TesseraLiveHub", "TesseraLiveProtocol",
            "Tessera", "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResultsCore", "TesseraResults", "TesseraRender",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ],
        // The page's files, compiled into the module as bytes (no bundle
        // to find at run time): LivePage composes them into one document.
        resources: [
            .embedInCode("Page/live.html"),
            .embedInCode("Page/live.css"),
            .embedInCode("Page/tessera-live.js"),
            .embedInCode("Page/live-demo.js"),
        ]
    ),
    // `LiveList(postgres:…)`: TesseraServe's public API over the
    // PostgreSQL backend.
    .target(
        name: "TesseraServePostgres",
        dependencies: [
            "TesseraServe", "TesseraLiveHub", "TesseraLivePostgres",
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // `tessera bench serve`: WebSocket clients that load a live-list server
    // on loopback and measure each change's way to each client. The
    // command's, not the library's: TesseraServe does not link it.
    .target(
        name: "TesseraLoad",
        dependencies: [
            "TesseraCommandKit", "TesseraDemoPhotos", "TesseraRender", "TesseraResultsCore", "TesseraSQLite",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ]
    ),
    // A Hummingbird application that mounts a live list beside routes of
    // its own, using TesseraServe's public API only (Examples/LiveList).
    .executableTarget(
        name: "LiveListExample",
        dependencies: [
            "TesseraServe", "TesseraResults", "TesseraSQLite",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ],
        path: "Examples/LiveList/Sources/LiveListExample"
    ),
    .testTarget(
        name: "LiveListExampleTests",
        dependencies: [
            "LiveListExample", "TesseraSQLite",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Examples/LiveList/Tests/LiveListExampleTests"
    ),
    .testTarget(
        name: "TesseraServeTests",
        dependencies: [
            "TesseraServe", "TesseraLiveHub", "TesseraLiveProtocol",
            "TesseraRender", "Tessera", "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResultsCore", "TesseraResults",
            "TesseraLoad", "tessera", "TesseraLivePostgres", "TesseraServePostgres", "TesseraPostgres", "TesseraPostgresTestSupport",
            // SplitMix64 for the seeded tests.
            "TesseraTestSupport", "TesseraTestTraits",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    ],
    swiftLanguageModes: [.v6]
)


/// `.ci/sanitizers` builds the suites a sanitizer checks in the plain
/// build's own folder, with TESSERA_SANITIZER set to `address` or
/// `thread`: the sanitizer then instruments Tessera's library targets and
/// the test targets it runs, and only those are compiled again; the
/// dependencies (SwiftNIO, BoringSSL, Hummingbird) keep the plain build's
/// objects. Their code is not instrumented: a sanitizer sees the memory
/// Tessera's code touches, and the locks of every library (it intercepts
/// pthreads).
if let sanitizer = Context.environment["TESSERA_SANITIZER"] {
    precondition(["address", "thread"].contains(sanitizer), "TESSERA_SANITIZER is address or thread, not \(sanitizer)")
    let libraries: Set<String> = [
        "TesseraDiff", "TesseraLayout", "TesseraView", "TesseraSQLite", "TesseraResultsCore", "TesseraResultsSQLite", "TesseraResults", "TesseraPostgres",
        "Tessera", "TesseraRender", "TesseraCommandKit", "TesseraCommandPostgres", "tessera",
    ]
    let checked: Set<String> = sanitizer == "address"
        ? libraries.union(["TesseraSQLiteTests", "TesseraResultsTests", "TesseraCommandTests", "TesseraFuzzCorpusTests",
                           "TesseraFuzzChecks", "TesseraResultsTestSupport", "TesseraTestSupport"])
        : libraries.union(["TesseraSQLiteTests", "TesseraResultsTests", "TesseraTests", "TesseraPostgresTests",
                           "TesseraResultsTestSupport", "TesseraPostgresTestSupport", "TesseraTestTraits"])
    // The test targets this sanitizer does not run, and the examples, leave
    // the sanitized build: the test bundle links every test target, and each
    // of them, built against the sanitized libraries, is compiled again
    // (the live list's example and suites doubled both sanitized builds).
    let runs: Set<String> = sanitizer == "address"
        ? ["TesseraSQLiteTests", "TesseraResultsTests", "TesseraCommandTests", "TesseraFuzzCorpusTests"]
        : ["TesseraSQLiteTests", "TesseraResultsTests", "TesseraTests", "TesseraPostgresTests"]
    let examples: Set<String> = ["CalendarLayoutExample", "LiveListExample"]
    package.targets.removeAll { target in
        (target.type == .test && !runs.contains(target.name)) || examples.contains(target.name)
    }
    for target in package.targets where checked.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
    }
    // The allocation counter's library stays plain: `tessera bench diff`
    // never preloads it into a sanitized process, whose sanitizer supplies
    // the allocator.
}
