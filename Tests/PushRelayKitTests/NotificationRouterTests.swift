import Foundation
import PushRelayKit
import Synchronization
import Testing

/// The app side of a trade alert: routes decoded from extras, cold-start taps held until
/// the UI is ready and delivered once, foreground arrivals decided by the app.
@Suite struct NotificationRouterTests {
    enum Screen: Sendable, Equatable {
        case tradeDetail(id: String)
        case inbox
    }
    struct TradeParams: Decodable, Sendable { var id: String }

    /// What the app opened, in order.
    final class Opened: Sendable {
        private let screens = Mutex<[Screen]>([])
        func append(_ screen: Screen) { screens.withLock { $0.append(screen) } }
        var all: [Screen] { screens.withLock { $0 } }
    }

    /// A router with the app's routes and a record of what it opened.
    func makeRouter() -> (NotificationRouter<Screen>, Opened) {
        let router = NotificationRouter<Screen>()
        router.route("trade") { (p: TradeParams) in .tradeDetail(id: p.id) }
        router.route("inbox", to: .inbox)
        return (router, Opened())
    }

    func payload(_ json: String, identifier: String? = nil) throws -> NotificationPayload {
        try NotificationPayload(json: Data(json.utf8), identifier: identifier)
    }

    @Test func routesAreDecodedFromTheExtras() throws {
        let (router, _) = makeRouter()
        let trade = try payload(#"{"aps":{"alert":"Filled"},"route":"trade","id":"T-42","_j_msgid":"77"}"#)
        #expect(router.destination(for: trade) == .tradeDetail(id: "T-42"))
        #expect(trade.identifier == "77")
        #expect(trade.extras["aps"] == nil)
        #expect(router.destination(for: try payload(#"{"route":"inbox"}"#)) == .inbox)

        let unrouted = Mutex<[String]>([])
        router.onUnrouted { payload, error in unrouted.withLock { $0.append(error == nil ? "unknown" : "undecodable") } }
        #expect(router.destination(for: try payload(#"{"route":"nowhere"}"#)) == nil)
        #expect(router.destination(for: try payload(#"{"aps":{"alert":"no route"}}"#)) == nil)
        #expect(router.destination(for: try payload(#"{"route":"trade","id":42}"#)) == nil, "id must be a string")
        #expect(unrouted.withLock { $0 } == ["unknown", "unknown", "undecodable"])
    }

    @Test func userInfoFromTheOSDecodesLikeJSON() throws {
        let (router, _) = makeRouter()
        let userInfo: [AnyHashable: Any] = ["aps": ["alert": "Filled", "badge": 1], "route": "trade", "id": "T-7", "_j_msgid": 123456789012]
        let payload = try NotificationPayload(userInfo: userInfo, identifier: "os-id")
        #expect(payload.identifier == "123456789012")
        #expect(router.destination(for: payload) == .tradeDetail(id: "T-7"))
    }

    @Test func aColdStartTapIsHeldUntilTheUIIsReadyThenDeliveredOnce() throws {
        let (router, opened) = makeRouter()
        router.onOpen { screen in opened.append(screen) }
        let tap = try payload(#"{"route":"trade","id":"T-42","_j_msgid":"1"}"#)

        router.handleTap(tap)
        #expect(opened.all.isEmpty, "the screen to push onto does not exist yet")
        // The OS reports the launching tap a second time (launch options and the delegate).
        router.handleTap(tap)
        router.uiReady()
        #expect(opened.all == [.tradeDetail(id: "T-42")])
        router.uiReady()
        router.handleTap(tap)
        #expect(opened.all == [.tradeDetail(id: "T-42")], "delivered once")

        // Once ready, a new tap goes straight through.
        router.handleTap(try payload(#"{"route":"inbox","_j_msgid":"2"}"#))
        #expect(opened.all == [.tradeDetail(id: "T-42"), .inbox])
    }

    @Test func ofTwoTapsBeforeTheUIIsReadyTheLatestWins() throws {
        let (router, opened) = makeRouter()
        router.onOpen { screen in opened.append(screen) }
        router.handleTap(try payload(#"{"route":"trade","id":"T-1","_j_msgid":"1"}"#))
        router.handleTap(try payload(#"{"route":"trade","id":"T-2","_j_msgid":"2"}"#))
        router.handleTap(try payload(#"{"route":"nowhere","_j_msgid":"3"}"#))
        router.uiReady()
        #expect(opened.all == [.tradeDetail(id: "T-2")])
    }

    @Test func aTornDownUIHoldsTapsAgain() throws {
        let (router, opened) = makeRouter()
        router.onOpen { screen in opened.append(screen) }
        router.uiReady()
        router.uiNotReady()
        router.handleTap(try payload(#"{"route":"inbox","_j_msgid":"9"}"#))
        #expect(opened.all.isEmpty)
        router.uiReady()
        #expect(opened.all == [.inbox])
    }

    @Test func foregroundArrivalsGoToTheHandlerWhichMayShowItsOwnAlert() throws {
        let (router, opened) = makeRouter()
        router.onOpen { screen in opened.append(screen) }
        let trade = try payload(#"{"aps":{"alert":"Filled"},"route":"trade","id":"T-42","_j_msgid":"5"}"#)
        #expect(router.handleForeground(trade) == .standard, "without a handler the system banner shows")

        // The seeds' case: trades get an in-app alert with a View button instead of a banner.
        let inAppAlerts = Mutex<[Screen]>([])
        router.onForeground { arrival in
            guard let destination = arrival.destination, case .tradeDetail = destination else { return .standard }
            inAppAlerts.withLock { $0.append(destination) }
            return .none
        }
        router.uiReady()
        #expect(router.handleForeground(trade) == .none)
        #expect(router.handleForeground(try payload(#"{"route":"inbox"}"#)) == .standard)
        #expect(inAppAlerts.withLock { $0 } == [.tradeDetail(id: "T-42")])
        #expect(opened.all.isEmpty, "arriving is not opening")
        // The user taps View.
        router.open(.tradeDetail(id: "T-42"))
        #expect(opened.all == [.tradeDetail(id: "T-42")])
    }
}
