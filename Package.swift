// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "dropcut",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "dropcut", targets: ["dropcut"]),
        .library(name: "Support", targets: ["Support"]),
        .library(name: "Digest", targets: ["Digest"]),
        .library(name: "Timeline", targets: ["Timeline"]),
        .library(name: "Subtitles", targets: ["Subtitles"]),
        .library(name: "MediaIO", targets: ["MediaIO"]),
        .library(name: "Render", targets: ["Render"]),
        .library(name: "Recipe", targets: ["Recipe"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "Daemon", targets: ["Daemon"]),
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
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Text layout: shaping (HarfBuzz, on the FreeType faces), bidi (FriBidi); line
        // break opportunities come from ICU, through the C target LineBreaking.
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        // Webhook deliveries: libcurl (TLS, timeouts, no redirects) behind one owner, WebhookPoster.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The PostgreSQL coordinator: libpq behind one owner, PostgresConnection (not
        // postgres-nio: its build alone would take CI past its 10 minutes; docs/design.md).
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // SHA-256 and HMAC: OpenSSL's libcrypto behind one owner, Digest's SHA256 (every
        // dropcut process loads it already, through libcurl and libpq).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Linux calls Swift cannot make itself (variadic prctl).
        .systemLibrary(name: "CLinux"),

        // The low-level pieces every layer uses: threads, cancellation, a bounded queue,
        // blocking work, text files, file names, system errors. No C import.
        .target(name: "Support"),
        // SHA-256 and HMAC-SHA256 (libcrypto): manifests' and webhooks' checksums, signatures.
        .target(name: "Digest", dependencies: ["CCrypto", "Support"]),
        // Pure Swift editing model: no C import.
        .target(name: "Timeline"),
        // SRT and WebVTT read into Timeline's caption cues (and WebVTT written): no C import.
        .target(name: "Subtitles", dependencies: ["Timeline"]),
        .target(name: "MediaIO", dependencies: ["CFFmpeg", "Support", "Timeline", .product(name: "Logging", package: "swift-log")]),
        // Hand-vectorised inner loops of Render, chosen at run time by CPU (each has a Swift twin).
        // Optimised in debug builds too (release keeps its own flags): at -O0 a Ken Burns
        // render took 17 times the CPU (61.8 s against 3.6 s), and the tests run debug binaries.
        // ICU's line BreakIterator in C: Foundation's own copy of ICU's headers clashes
        // with the system's in a Swift module (docs/design.md).
        .target(name: "LineBreaking", linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("icudata")]),
        .target(name: "RenderKernels", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // OpenCV's detectors for `fit: smart` (faces, people, motion), C++ behind a C
        // interface owned by one Swift type (Reframe's SubjectDetector). -O2 in debug too,
        // as RenderKernels. Debian's libopencv-*-dev has no pkg-config file of its own
        // without libopencv-dev (which pulls in all of OpenCV), so the paths are given here.
        .target(name: "CVision", cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-O2"])],
                linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        // `fit: smart`'s analysis pass: a clip decoded small (MediaIO), looked at by CVision.
        .target(name: "Reframe", dependencies: ["CVision", "MediaIO", "Support", "Timeline"]),
        // Optimised in debug builds too, as RenderKernels: the tests run debug binaries, and at
        // -Onone Render's generic pixel loops stay unspecialised — deinterlacing 100 frames of
        // 640x360 took 15.6 s of CPU against 0.8 s at -O (its compile costs about 19 s more CPU).
        .target(name: "Render", dependencies: [
            "Support", "Timeline", "MediaIO", "CFreeType", "CHarfBuzz", "CFriBidi", "CFontconfig", "LineBreaking", "RenderKernels", .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "Recipe", dependencies: ["Support", "Timeline", "Subtitles", "CZlib", .product(name: "Yams", package: "Yams")]),
        // Recipe + media -> one complete Production, rendered: what the CLI and the daemon share.
        .target(name: "Pipeline", dependencies: [
            "Support", "Digest", "Timeline", "Subtitles", "MediaIO", "Render", "Recipe", "Reframe", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Daemon", dependencies: [
            "CSystemd", "CLinux", "CCurl", "CLibpq", "Support", "Digest", "Recipe", "Pipeline",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .executableTarget(
            name: "dropcut",
            dependencies: [
                "Support", "Timeline", "Subtitles", "MediaIO", "Render", "Recipe", "Reframe", "Pipeline", "Daemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Micro-benchmarks run by scripts/bench (not by the tests).
        .executableTarget(name: "StretchBench", dependencies: ["Render", "MediaIO"], path: "Benchmarks/StretchBench"),
        .executableTarget(name: "DigestBench", dependencies: ["Digest"], path: "Benchmarks/DigestBench"),

        // Test helpers shared by the test targets: temp dirs, fixture generation with the
        // ffmpeg CLI (tests only), a real journald.
        .target(name: "TestSupport", dependencies: ["CZlib"], path: "Tests/TestSupport"),
        .testTarget(name: "SupportTests", dependencies: ["Support"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        .testTarget(name: "SubtitlesTests", dependencies: ["Subtitles", "Timeline", "TestSupport"]),
        .testTarget(name: "TimelineTests", dependencies: [
            "Timeline", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "TestSupport", "CFFmpeg", "CFreeType"]),
        .testTarget(name: "RecipeTests", dependencies: ["Recipe", "Support", "Timeline", "TestSupport"]),
        .testTarget(name: "RenderTests", dependencies: [
            "Render", "Timeline", "MediaIO", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "PipelineTests", dependencies: [
            "Pipeline", "Recipe", "Render", "Support", "Digest", "Timeline", "MediaIO", "TestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        // Several processes racing to take over the same expired claims (TakeoverRaceTests).
        .executableTarget(name: "TakeoverRace", dependencies: ["Daemon"], path: "Tests/TakeoverRace"),
        // Started many at once by DaemonTests: processes publishing to one name (real concurrency).
        .executableTarget(name: "PublishRacer", dependencies: ["Daemon"], path: "Tests/PublishRacer"),
        .testTarget(name: "DaemonTests", dependencies: [
            "Daemon", "Pipeline", "Support", "Digest", "TestSupport", "MediaIO", "TakeoverRace", "PublishRacer", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "dropcutTests", dependencies: ["dropcut", "MediaIO", "Support", "Digest", "TestSupport"],
                    exclude: ["sandbox_exec.py", "chromium_cdp.py", "webhook_receiver.py"]),
        .testTarget(name: "SystemdTests", dependencies: ["dropcut", "Daemon", "TestSupport"]),
    ]
)
