// swift-tools-version:6.0
import PackageDescription

// One C target carries every C header we use: importing libevent and nghttp2 through
// separate system-library modules defines glibc's fd_set twice on a clean build.
let cSystem: Target.Dependency = "CSystem"

let package = Package(
    name: "PushRelay",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .executable(name: "pushrelay", targets: ["PushRelayCommand"]),
        .library(name: "PushRelayKit", targets: ["PushRelayKit"]),
    ],
    targets: [
        .target(
            name: "CSystem",
            linkerSettings: [
                .linkedLibrary("event_core"), .linkedLibrary("event_extra"),
                .linkedLibrary("event_pthreads"), .linkedLibrary("event_openssl"),
                .linkedLibrary("nghttp2"), .linkedLibrary("pq"),
                .linkedLibrary("ssl"), .linkedLibrary("crypto"),
            ]
        ),
        // Logging, configuration, JSON errors: the small value types every module shares.
        .target(name: "RelayCore", dependencies: [cSystem]),
        // Secret hashing, sealing at rest, key and certificate checks (OpenSSL).
        .target(name: "RelayCrypto", dependencies: [cSystem, "RelayCore"]),
        // The process's event loops: one libevent loop per thread, the group every socket runs on, LoopBound.
        .target(name: "EventLoops", dependencies: [cSystem]),
        // libevent evhttp server: a listener on each loop of the group, router, deferred replies.
        .target(name: "HTTPServer", dependencies: [cSystem, "RelayCore", "EventLoops"]),
        // libpq connection pool, migrations, the embedded PostgreSQL cluster.
        .target(name: "PostgresStore", dependencies: [cSystem, "RelayCore"],
                plugins: ["EmbedMigrations"]),
        // APNs provider client: HTTP/2 (nghttp2) over TLS (OpenSSL), JWT, pools.
        .target(name: "APNSClient", dependencies: [cSystem, "RelayCore", "EventLoops"]),
        // An APNs look-alike to develop, test and benchmark against (APNs' reasons from APNSClient).
        .target(name: "APNSSimulator", dependencies: [cSystem, "RelayCore", "EventLoops", "APNSClient"]),
        // FCM HTTP v1 sender: OAuth2 access tokens (RS256 assertions) and messages on the APNs client's HTTP/2 machinery.
        .target(name: "FCMClient", dependencies: [cSystem, "RelayCore", "RelayCrypto", "EventLoops", "APNSClient"]),
        // An FCM HTTP v1 look-alike (token endpoint + messages:send) on the APNs simulator's server.
        .target(name: "FCMSimulator", dependencies: ["RelayCore", "RelayCrypto", "EventLoops", "APNSClient", "APNSSimulator"]),
        // Webhook delivery: HTTP/1.1 POSTs over TCP or TLS with an SSRF guard (only public addresses, no DNS rebinding).
        .target(name: "WebhookClient", dependencies: [cSystem, "RelayCore", "EventLoops", "APNSClient"]),
        // What a push means: JPush push bodies validated, APNs payloads built (pure, no I/O).
        .target(name: "PushCore", dependencies: ["RelayCore"]),
        // Schedule triggers: when a single or periodical schedule fires (pure, injected clock).
        .target(name: "Scheduling", dependencies: ["RelayCore"]),
        // The push pipeline: messages accepted into PostgreSQL, chunks leased by workers, sent to APNs.
        .target(name: "PushPipeline", dependencies: [cSystem, "RelayCore", "RelayCrypto", "PostgresStore", "PushCore", "APNSClient", "FCMClient", "Scheduling", "WebhookClient"]),
        // The API's store: the repositories of apps, credentials, devices, groups and schedules.
        .target(name: "RelayStore", dependencies: ["RelayCore", "RelayCrypto", "PostgresStore", "PushCore", "PushPipeline", "Scheduling"]),
        // The REST API: admin routes, JPush v3 routes, authentication.
        .target(name: "RelayAPI", dependencies: [cSystem, "RelayCore", "RelayCrypto", "HTTPServer", "PostgresStore", "PushCore", "PushPipeline", "RelayStore", "Scheduling", "WebhookClient", "APNSClient"]),
        // Services run until a graceful shutdown; a group starts them in order and stops them in reverse.
        .target(name: "ServiceLifecycle", dependencies: ["RelayCore"]),
        .executableTarget(name: "PushRelayCommand", dependencies: [
            "RelayCore", "ServiceLifecycle", "RelayCrypto", "EventLoops", "HTTPServer", "PostgresStore", "RelayAPI", "APNSClient", "APNSSimulator", "FCMSimulator", "PushPipeline", "WebhookClient",
        ]),

        // The Swift library for app backends and iOS apps: Foundation only, none of the relay's modules.
        .target(name: "PushRelayKit"),

        // Turns migrations/*.sql into Swift source, so the binary carries its schema.
        .executableTarget(name: "EmbedMigrationsTool", path: "Plugins/EmbedMigrationsTool"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["EmbedMigrationsTool"]),

        // Shared by the test targets: a fresh database per test on the test cluster.
        .target(name: "TestSupport", dependencies: ["PostgresStore", "RelayCore"]),
        // Shared by the harnesses: the relay assembled in the test process, and an APNs simulator for it.
        .target(name: "RelayTestSupport", dependencies: [
            "TestSupport", "RelayAPI", "PushPipeline", "HTTPServer", "APNSSimulator", "APNSClient", "PostgresStore", "RelayCore", "RelayCrypto",
            "WebhookClient", "EventLoops",
        ]),
        .testTarget(name: "RelayCoreTests", dependencies: ["RelayCore", "TestSupport"]),
        .testTarget(name: "EventLoopsTests", dependencies: ["EventLoops"]),
        .testTarget(name: "RelayCryptoTests", dependencies: ["RelayCrypto", "RelayCore"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "RelayAPI", "RelayCore", "TestSupport"]),
        .testTarget(name: "PostgresStoreTests", dependencies: ["PostgresStore", "RelayCore"]),
        .testTarget(name: "APNSClientTests", dependencies: ["APNSClient", "EventLoops", "RelayCore", "TestSupport"]),
        .testTarget(name: "FCMClientTests", dependencies: ["FCMClient", "FCMSimulator", "APNSClient", "APNSSimulator", "RelayCrypto", "RelayCore", "TestSupport"]),
        .testTarget(name: "APNSSimulatorTests", dependencies: ["APNSSimulator", "APNSClient", "RelayCore", "TestSupport"]),
        .testTarget(name: "WebhookClientTests", dependencies: [cSystem, "WebhookClient", "EventLoops", "RelayCore", "TestSupport"]),
        .testTarget(name: "PushCoreTests", dependencies: ["PushCore", "RelayCore"]),
        .testTarget(name: "SchedulingTests", dependencies: ["Scheduling", "RelayCore"]),
        .testTarget(name: "ServiceLifecycleTests", dependencies: ["ServiceLifecycle", "RelayCore"]),
        .testTarget(name: "PushPipelineTests", dependencies: [
            "PushPipeline", "PushCore", "RelayAPI", "RelayStore", "HTTPServer", "PostgresStore", "RelayCore", "RelayCrypto",
            "APNSSimulator", "APNSClient", "FCMClient", "FCMSimulator", "Scheduling", "TestSupport", "RelayTestSupport", "WebhookClient",
        ]),
        .testTarget(name: "RelayAPITests", dependencies: [
            "RelayAPI", "RelayStore", "HTTPServer", "PostgresStore", "RelayCore", "RelayCrypto", "TestSupport", "RelayTestSupport",
        ]),
        .testTarget(name: "PushRelayKitTests", dependencies: [
            "PushRelayKit", "RelayAPI", "HTTPServer", "PostgresStore", "PushPipeline", "RelayCore", "RelayCrypto", "APNSSimulator", "TestSupport",
            "RelayTestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
