#if canImport(ActivityKit)
import ActivityKit
import Foundation

/// Feeds a `PushTokenReporter` from ActivityKit for one attributes type: its push-to-start
/// token (iOS 17.2+), and for each of its activities, the ones running at launch and each one
/// started later (by the app or by a push), the update tokens as they rotate and the states.
///
/// ```swift
/// let observer = LiveActivityTokens(DeliveryAttributes.self, reporter: reporter)
/// observer.start()   // at launch, for each attributes type the app has
/// ```
@available(iOS 16.2, *)
public final class LiveActivityTokens<Attributes: ActivityAttributes>: Sendable {
    private let reporter: PushTokenReporter
    private let tasks = Locked<[Task<Void, Never>]>([])

    public init(_ type: Attributes.Type = Attributes.self, reporter: PushTokenReporter) {
        self.reporter = reporter
    }

    /// The name APNs' `attributes-type` and the relay's start tokens use for `Attributes`.
    public static var attributesType: String { String(describing: Attributes.self) }

    /// Starts observing; call once, at launch.
    public func start() {
        let reporter = reporter
        var started: [Task<Void, Never>] = []
        if #available(iOS 17.2, *) {
            started.append(Task {
                for await token in Activity<Attributes>.pushToStartTokenUpdates {
                    await reporter.report(.startToken(attributesType: Self.attributesType, token: DeviceToken(token).hex))
                }
            })
        }
        started.append(Task {
            for activity in Activity<Attributes>.activities { Self.observe(activity, reporter: reporter) }
            for await activity in Activity<Attributes>.activityUpdates { Self.observe(activity, reporter: reporter) }
        })
        tasks.withLock { $0 += started }
    }

    /// Stops observing.
    public func stop() {
        tasks.withLock { tasks in
            tasks.forEach { $0.cancel() }
            tasks.removeAll()
        }
    }

    /// Reports one activity's tokens and states until it is over.
    private static func observe(_ activity: Activity<Attributes>, reporter: PushTokenReporter) {
        let id = activity.id
        Task {
            for await token in activity.pushTokenUpdates {
                await reporter.report(.activityToken(activityID: id, token: DeviceToken(token).hex))
            }
        }
        Task {
            for await state in activity.activityStateUpdates {
                guard let reported = LiveActivityState(state) else { continue }
                await reporter.report(.activityState(activityID: id, state: reported))
                if reported == .dismissed { return }
            }
        }
    }
}

@available(iOS 16.2, *)
extension LiveActivityState {
    /// ActivityKit's state as the relay takes it; nil for a state it does not know.
    init?(_ state: ActivityState) {
        switch state {
        case .active: self = .active
        case .ended: self = .ended
        case .dismissed: self = .dismissed
        case .stale: self = .stale
        @unknown default: return nil
        }
    }
}
#endif
