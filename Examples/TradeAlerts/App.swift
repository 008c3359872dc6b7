// The iOS side: permission, registration, routing of taps and foreground arrivals, badge clearing.
// (MyAPI, HomeView and TradeDetail stand for the app's own code. Not compiled on Linux.)
import PushRelayKit
import SwiftUI
import UIKit

enum Screen: Sendable, Hashable {
    case tradeDetail(id: String)
}

/// Registers through the app's own backend, which calls PushRelay with the master secret
/// (the secret never ships in the app). `PushRelayClient` conforms too, for internal apps.
struct BackendRegistration: DeviceRegistrationService {
    func register(token: String, environment: APNsEnvironment, alias: String?, tags: [String]) async throws -> String {
        try await MyAPI.shared.post("/me/push-device", ["token": token, "environment": environment.rawValue, "tags": tags])
    }
    func update(registrationID: String, _ update: DeviceUpdate) async throws {
        try await MyAPI.shared.post("/me/push-device/\(registrationID)", update)
    }
}

final class AppDelegate: NSObject, UIApplicationDelegate {
    static let router: NotificationRouter<Screen> = {
        let router = NotificationRouter<Screen>()
        struct TradeParams: Decodable, Sendable { var id: String }
        router.route("trade") { (p: TradeParams) in .tradeDetail(id: p.id) }
        return router
    }()
    static let registrar = PushRegistrar(
        service: BackendRegistration(),
        environment: .current(),                              // sandbox for development builds
        store: UserDefaultsRegistrationStore(),
        setOSBadge: { try await SystemBadge.set($0) })
    let bridge = UserNotificationsBridge(router: AppDelegate.router)

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil) -> Bool {
        bridge.install()                                      // before launch ends: the launching tap is not lost
        Task { await RemoteNotificationPermission.registerIfAuthorized() }
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        Task { await Self.registrar.didReceiveToken(deviceToken) }  // hex from the bytes; re-registers only on change
    }
}

@main
struct TradingApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) var delegate
    @State private var path: [Screen] = []
    @State private var inAppAlert: Screen?
    @Environment(\.scenePhase) private var phase

    var body: some Scene {
        WindowGroup {
            NavigationStack(path: $path) {
                HomeView(onSignIn: { userID in
                    Task {
                        // Ask only when it makes sense to the user, then register.
                        _ = try await RemoteNotificationPermission.requestAndRegister()
                        try await AppDelegate.registrar.setAlias(userID)
                    }
                })
                .navigationDestination(for: Screen.self) { screen in
                    if case .tradeDetail(let id) = screen { TradeDetail(id: id) }
                }
            }
            .alert("Trade filled", isPresented: .constant(inAppAlert != nil)) {
                Button("View") { if let screen = inAppAlert { AppDelegate.router.open(screen) }; inAppAlert = nil }
                Button("Later", role: .cancel) { inAppAlert = nil }
            }
            .task {
                let router = AppDelegate.router
                router.onOpen { screen in Task { @MainActor in path.append(screen) } }
                // In the foreground: trades get an in-app alert with a View button, not a banner.
                router.onForeground { arrival in
                    guard let screen = arrival.destination else { return .standard }
                    Task { @MainActor in inAppAlert = screen }
                    return .none
                }
                router.uiReady()                              // a cold-start tap is delivered now, once
            }
            .onChange(of: phase) { _, phase in
                if phase == .active { Task { try? await AppDelegate.registrar.resetBadge() } }  // OS and relay
            }
        }
    }
}
