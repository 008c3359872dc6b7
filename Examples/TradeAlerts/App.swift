// The iOS side: permission, client-key registration, routing of taps (reported "opened") and
// foreground arrivals, badge clearing.
// (MyAPI, HomeView and TradeDetail stand for the app's own code. Not compiled on Linux.)
import PushRelayKit
import SwiftUI
import UIKit

enum Screen: Sendable, Hashable {
    case tradeDetail(id: String)
}

/// Shared by the app and its Notification Service Extension (NotificationService.swift): the
/// relay with the app's client key (public: it can only register a device), the device secret
/// in a Keychain group and the receipt queue in an App Group, which both targets are entitled to.
enum Relay {
    static let client = PushRelayDeviceClient(baseURL: URL(string: "https://push.example.com")!, clientKey: "ck_5f0c…_9a1e…")
    static let registration = ClientKeyRegistration(
        client: client, store: KeychainCredentialStore(accessGroup: "ABCDE12345.com.example.trading.shared"))
    static let receipts = PushRelayReceipts(
        registration: registration, store: FileReceiptQueueStore(appGroup: "group.com.example.trading")!)
}

final class AppDelegate: NSObject, UIApplicationDelegate {
    static let router: NotificationRouter<Screen> = {
        let router = NotificationRouter<Screen>()
        struct TradeParams: Decodable, Sendable { var id: String }
        router.route("trade") { (p: TradeParams) in .tradeDetail(id: p.id) }
        router.reportOpens(to: Relay.receipts)                 // "opened", once per tapped notification
        return router
    }()
    static let registrar = PushRegistrar(
        service: Relay.registration,                           // the client key: no backend proxy
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
        Task {
            await Self.registrar.didReceiveToken(deviceToken)  // hex from the bytes; re-registers only on change
            await Relay.receipts.flush()                        // what the extension could not send
        }
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
                        // The alias is the backend's to set (a phone could claim anyone's): it
                        // attaches the registration to the user it authenticated (Backend.swift).
                        if let rid = await AppDelegate.registrar.registrationID {
                            try await MyAPI.shared.post("/me/push-device", ["registration_id": rid])
                        }
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
                if phase == .active {
                    Task {
                        try? await SystemBadge.set(0)                 // the relay's badge: the backend's (Backend.swift)
                        await Relay.receipts.flush()
                    }
                }
            }
        }
    }
}
