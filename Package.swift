// swift-tools-version:6.2
import PackageDescription

// Debug builds of this package's own tests optimise the pixel code (RenderKernels and
// CVision at -O2, Render at -O): the tests run debug binaries, and at -O0/-Onone a Ken
// Burns render took 17 times the CPU and deinterlacing 100 frames of 640x360 15.6 s of CPU
// against 0.8 s. Only when DROPCUT_DEVELOPMENT is set (scripts/test, scripts/bench and
// .ci/run set it): a package that depends on dropcut by version gets no unsafe flag from
// it, and its release builds optimise as any do.
let development = Context.environment["DROPCUT_DEVELOPMENT"] == "1"
let optimisedC: [CSetting] = development ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []
let optimisedCXX: [CXXSetting] = development ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []
let optimisedSwift: [SwiftSetting] = development ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []

let package = Package(
    name: "dropcut",
    products: [
        .executable(name: "dropcut", targets: ["dropcut"]),
        .library(name: "DropcutSupport", targets: ["DropcutSupport"]),
        .library(name: "DropcutDigest", targets: ["DropcutDigest"]),
        .library(name: "DropcutTimeline", targets: ["DropcutTimeline"]),
        .library(name: "DropcutSubtitles", targets: ["DropcutSubtitles"]),
        .library(name: "DropcutMediaIO", targets: ["DropcutMediaIO"]),
        .library(name: "DropcutRender", targets: ["DropcutRender"]),
        .library(name: "DropcutRecipe", targets: ["DropcutRecipe"]),
        .library(name: "DropcutPipeline", targets: ["DropcutPipeline"]),
        .library(name: "DropcutDaemon", targets: ["DropcutDaemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // The HTTP listener (NIOHTTP1 on NIOPosix) and its /metrics (swift-prometheus, which
        // implements swift-metrics' handlers). Both are only started when the config asks.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
    ],
    targets: [
        // C libraries, found with pkg-config (scripts/bootstrap installs the -dev packages).
        .systemLibrary(name: "CDropcutFFmpeg", path: "Sources/CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        .systemLibrary(name: "CDropcutSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CDropcutFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CDropcutZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Text layout: shaping (HarfBuzz, on the FreeType faces), bidi (FriBidi); line
        // break opportunities come from ICU, through the C target LineBreaking.
        .systemLibrary(name: "CDropcutHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CDropcutFriBidi", path: "Sources/CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        .systemLibrary(name: "CDropcutFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        // Webhook deliveries: libcurl (TLS, timeouts, no redirects) behind one owner, WebhookPoster.
        .systemLibrary(name: "CDropcutCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The PostgreSQL coordinator: libpq behind one owner, PostgresConnection (not
        // postgres-nio: its build alone would take CI past its 10 minutes; docs/design.md).
        .systemLibrary(name: "CDropcutLibpq", path: "Sources/CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // SHA-256 and HMAC: OpenSSL's libcrypto behind one owner, Digest's SHA256 (every
        // dropcut process loads it already, through libcurl and libpq).
        .systemLibrary(name: "CDropcutCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Linux calls Swift cannot make itself (variadic prctl; renameat2, which glibc
        // declares only under _GNU_SOURCE): the daemon's worker and Pipeline's publishing.
        .systemLibrary(name: "CDropcutLinux", path: "Sources/CLinux"),

        // The low-level pieces every layer uses: threads, cancellation, a bounded queue,
        // blocking work, text files, file names, system errors. No C import.
        .target(name: "DropcutSupport", path: "Sources/Support"),
        // SHA-256 and HMAC-SHA256 (libcrypto): manifests' and webhooks' checksums, signatures.
        .target(name: "DropcutDigest", dependencies: ["CDropcutCrypto", "DropcutSupport"], path: "Sources/Digest"),
        // Pure Swift editing model: no C import.
        .target(name: "DropcutTimeline", path: "Sources/Timeline"),
        // SRT and WebVTT read into Timeline's caption cues (and WebVTT written): no C import.
        .target(name: "DropcutSubtitles", dependencies: ["DropcutTimeline"], path: "Sources/Subtitles"),
        .target(name: "DropcutMediaIO", dependencies: ["CDropcutFFmpeg", "DropcutSupport", "DropcutTimeline", .product(name: "Logging", package: "swift-log")], path: "Sources/MediaIO"),
        // ICU's line BreakIterator in C: Foundation's own copy of ICU's headers clashes
        // with the system's in a Swift module (docs/design.md).
        .target(name: "CDropcutLineBreaking", path: "Sources/LineBreaking", linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("icudata")]),
        // Hand-vectorised inner loops of Render, chosen at run time by CPU (each has a Swift twin).
        .target(name: "CDropcutRenderKernels", path: "Sources/RenderKernels", cSettings: optimisedC),
        // OpenCV's detectors for `fit: smart` (faces, people, motion), C++ behind a C
        // interface owned by one Swift type (Reframe's SubjectDetector). Debian's
        // libopencv-*-dev has no pkg-config file of its own without libopencv-dev (which pulls
        // in 46 packages, VTK and Open MPI among them, and whose opencv4.pc links all 50
        // OpenCV libraries), so the include folder and libraries are given here: the one
        // unsafe flag left in a library target (docs/library.md).
        .target(name: "CDropcutVision", path: "Sources/CVision", cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])] + optimisedCXX,
                linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        // `fit: smart`'s analysis pass: a clip decoded small (MediaIO), looked at by CVision.
        .target(name: "DropcutReframe", dependencies: ["CDropcutVision", "DropcutMediaIO", "DropcutSupport", "DropcutTimeline"], path: "Sources/Reframe"),
        .target(name: "DropcutRender", dependencies: [
            "DropcutSupport", "DropcutTimeline", "DropcutMediaIO", "CDropcutFreeType", "CDropcutHarfBuzz", "CDropcutFriBidi", "CDropcutFontconfig", "CDropcutLineBreaking", "CDropcutRenderKernels", .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Render", swiftSettings: optimisedSwift),
        .target(name: "DropcutRecipe", dependencies: ["DropcutSupport", "DropcutTimeline", "DropcutSubtitles", "CDropcutZlib", .product(name: "Yams", package: "Yams")], path: "Sources/Recipe"),
        // Recipe + media -> one complete Production, rendered: what the CLI and the daemon share.
        .target(name: "DropcutPipeline", dependencies: [
            "CDropcutLinux", "DropcutSupport", "DropcutDigest", "DropcutTimeline", "DropcutSubtitles", "DropcutMediaIO", "DropcutRender", "DropcutRecipe", "DropcutReframe", .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Pipeline", plugins: ["BuildCommit"]),
        // Before every build: the commit `dropcut --version` shows (DropcutVersion.commit).
        .plugin(name: "BuildCommit", capability: .buildTool(), path: "Plugins/BuildCommit"),
        .target(name: "DropcutDaemon", dependencies: [
            "CDropcutSystemd", "CDropcutLinux", "CDropcutCurl", "CDropcutLibpq", "DropcutSupport", "DropcutDigest", "DropcutRecipe", "DropcutPipeline",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], path: "Sources/Daemon"),
        .executableTarget(
            name: "dropcut",
            dependencies: [
                "DropcutSupport", "DropcutTimeline", "DropcutSubtitles", "DropcutMediaIO", "DropcutRender", "DropcutRecipe", "DropcutReframe", "DropcutPipeline", "DropcutDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Micro-benchmarks run by scripts/bench (not by the tests).
        .executableTarget(name: "StretchBench", dependencies: ["DropcutRender", "DropcutMediaIO"], path: "Benchmarks/StretchBench"),
        .executableTarget(name: "DigestBench", dependencies: ["DropcutDigest"], path: "Benchmarks/DigestBench"),

        // Test helpers shared by the test targets: temp dirs, fixture generation with the
        // ffmpeg CLI (tests only), a real journald.
        .target(name: "TestSupport", dependencies: ["CDropcutZlib"], path: "Tests/TestSupport", exclude: ["webhook_receiver.py", "chromium_playback.py"]),
        .testTarget(name: "SupportTests", dependencies: ["DropcutSupport"]),
        .testTarget(name: "DigestTests", dependencies: ["DropcutDigest"]),
        .testTarget(name: "SubtitlesTests", dependencies: ["DropcutSubtitles", "DropcutTimeline", "TestSupport"]),
        .testTarget(name: "TimelineTests", dependencies: [
            "DropcutTimeline", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "MediaIOTests", dependencies: ["DropcutMediaIO", "TestSupport", "CDropcutFFmpeg", "CDropcutFreeType"]),
        .testTarget(name: "RecipeTests", dependencies: ["DropcutRecipe", "DropcutSupport", "DropcutTimeline", "TestSupport"]),
        .testTarget(name: "RenderTests", dependencies: [
            "DropcutRender", "DropcutTimeline", "DropcutMediaIO", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "PipelineTests", dependencies: [
            "DropcutPipeline", "DropcutRecipe", "DropcutRender", "DropcutSupport", "DropcutDigest", "DropcutTimeline", "DropcutMediaIO", "TestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        // Several processes racing to take over the same expired claims (TakeoverRaceTests).
        .executableTarget(name: "TakeoverRace", dependencies: ["DropcutDaemon"], path: "Tests/TakeoverRace"),
        // Started many at once by DaemonTests: processes publishing to one name (real concurrency).
        .executableTarget(name: "PublishRacer", dependencies: ["DropcutDaemon", "DropcutPipeline"], path: "Tests/PublishRacer"),
        .testTarget(name: "DaemonTests", dependencies: [
            "DropcutDaemon", "DropcutPipeline", "DropcutSupport", "DropcutDigest", "TestSupport", "DropcutMediaIO", "TakeoverRace", "PublishRacer", .product(name: "Logging", package: "swift-log"),
        ]),
        // The built tool as a user runs it: each command on real files (render, plan, probe,
        // validate, reframe), every recipe feature rendered and read back.
        .testTarget(name: "CommandLineTests", dependencies: ["dropcut", "DropcutMediaIO", "DropcutSupport", "DropcutDigest", "TestSupport"]),
        // The daemon as a process, end to end: inboxes, claims, farms, the HTTP listener,
        // webhooks, a browser on the status page, crashes and partitions.
        .testTarget(name: "EndToEndTests", dependencies: ["dropcut", "DropcutSupport", "DropcutDigest", "TestSupport"],
                    exclude: ["sandbox_exec.py", "chromium_cdp.py"]),
        // The repository itself: module boundaries and rooms, the docs against the code, the
        // scripts, the test tiers, and dropcut as a dependency of another package.
        .testTarget(name: "RepositoryTests", dependencies: ["dropcut", "TestSupport"]),
        .testTarget(name: "SystemdTests", dependencies: ["dropcut", "DropcutDaemon", "TestSupport"]),
    ]
)
