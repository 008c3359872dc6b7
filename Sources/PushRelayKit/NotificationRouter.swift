import Foundation

/// Routes notifications to the app's screens.
///
/// The app declares routes by name; a push names its route in its extras
/// (`"route": "trade"`) next to the route's parameters (`"id": "T-42"`):
///
/// ```swift
/// let router = NotificationRouter<Screen>()
/// router.route("trade") { (p: TradeParams) in .tradeDetail(id: p.id) }
/// router.onOpen { screen in navigator.show(screen) }
/// ```
///
/// Taps before `uiReady()` (a cold start) are held and delivered once it is called;
/// each notification is delivered once. Arrivals while the app is in the foreground go
/// to `onForeground`, which decides whether the system shows its banner.
public final class NotificationRouter<Destination: Sendable>: Sendable {
    /// The extras key naming the route.
    public let routeKey: String

    private struct State {
        var routes: [String: @Sendable (NotificationPayload) throws -> Destination] = [:]
        var gate = TapGate<Destination>()
        var open: (@Sendable (Destination) -> Void)?
        var foreground: (@Sendable (Arrival) -> ForegroundPresentation)?
        var unrouted: (@Sendable (NotificationPayload, (any Error)?) -> Void)?
        var opened: (@Sendable (String) -> Void)?
    }
    private let state = Locked(State())

    /// A notification that arrived while the app was in the foreground.
    public struct Arrival: Sendable {
        public var payload: NotificationPayload
        /// Where a tap would go; nil when the push names no known route.
        public var destination: Destination?
    }

    public init(routeKey: String = "route") {
        self.routeKey = routeKey
    }

    // MARK: Declaring

    /// Declares the route `name`; its parameters are decoded from the extras.
    public func route<Parameters: Decodable & Sendable>(_ name: String, _ make: @escaping @Sendable (Parameters) -> Destination) {
        state.withLock { $0.routes[name] = { payload in make(try payload.decodeExtras(Parameters.self)) } }
    }

    /// Declares a route without parameters.
    public func route(_ name: String, to destination: Destination) {
        state.withLock { $0.routes[name] = { _ in destination } }
    }

    /// Where tapped notifications are delivered (on the caller's thread; hop to the main actor inside).
    public func onOpen(_ handler: @escaping @Sendable (Destination) -> Void) {
        state.withLock { $0.open = handler }
    }

    /// Decides the system presentation of foreground arrivals; without one, `.standard`.
    public func onForeground(_ handler: @escaping @Sendable (Arrival) -> ForegroundPresentation) {
        state.withLock { $0.foreground = handler }
    }

    /// Told about notifications whose route is unknown or whose parameters do not decode.
    public func onUnrouted(_ handler: @escaping @Sendable (NotificationPayload, (any Error)?) -> Void) {
        state.withLock { $0.unrouted = handler }
    }

    /// Told the relay's message id of each tapped notification, once, routed or not.
    public func onOpened(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.opened = handler }
    }

    /// Reports "opened" to the relay for each tapped notification it sent, once.
    public func reportOpens(to receipts: PushRelayReceipts) {
        onOpened { msgID in Task { await receipts.report(.opened, msgID: msgID) } }
    }

    // MARK: Events

    /// Where the payload leads; nil (and `onUnrouted` told) when it names no known route.
    public func destination(for payload: NotificationPayload) -> Destination? {
        let (route, unrouted) = state.withLock { state in
            (payload.extras[routeKey]?.stringValue.flatMap { state.routes[$0] }, state.unrouted)
        }
        guard let route else {
            unrouted?(payload, nil)
            return nil
        }
        do {
            return try route(payload)
        } catch {
            unrouted?(payload, error)
            return nil
        }
    }

    /// The user tapped a notification: delivered now, or held until `uiReady()`; the first
    /// report of a tap on the relay's notification goes to `onOpened`.
    public func handleTap(_ payload: NotificationPayload) {
        let destination = destination(for: payload)
        let (tap, handler, opened) = state.withLock { state in (state.gate.tap(destination, id: payload.identifier), state.open, state.opened) }
        if tap.isFirst, let msgID = payload.messageID { opened?(msgID) }
        if let item = tap.deliver, let handler { handler(item) }
    }

    /// Opens a destination as if tapped (the "View" button of an in-app alert).
    public func open(_ destination: Destination) {
        deliver { $0.tap(destination, id: nil).deliver }
    }

    /// The UI can show destinations now: a held cold-start tap is delivered, once.
    public func uiReady() {
        deliver { $0.ready() }
    }

    /// The UI went away (its scene was torn down): hold taps again until `uiReady()`.
    public func uiNotReady() {
        state.withLock { $0.gate.notReady() }
    }

    /// A notification arrived in the foreground: what the system should show.
    public func handleForeground(_ payload: NotificationPayload) -> ForegroundPresentation {
        let arrival = Arrival(payload: payload, destination: destination(for: payload))
        guard let handler = state.withLock({ $0.foreground }) else { return .standard }
        return handler(arrival)
    }

    /// Runs a gate event under the lock and the open handler outside it.
    private func deliver(_ event: (inout TapGate<Destination>) -> Destination?) {
        let (item, handler) = state.withLock { state in (event(&state.gate), state.open) }
        if let item, let handler { handler(item) }
    }
}

/// How the system presents a notification that arrives in the foreground.
public struct ForegroundPresentation: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let banner = ForegroundPresentation(rawValue: 1 << 0)
    public static let sound = ForegroundPresentation(rawValue: 1 << 1)
    public static let badge = ForegroundPresentation(rawValue: 1 << 2)
    public static let list = ForegroundPresentation(rawValue: 1 << 3)
    /// Banner, sound and notification-centre entry: what the app would get in the background.
    public static let standard: ForegroundPresentation = [.banner, .sound, .list]
    /// Nothing from the system: the app shows its own in-app alert (or nothing).
    public static let none: ForegroundPresentation = []
}
