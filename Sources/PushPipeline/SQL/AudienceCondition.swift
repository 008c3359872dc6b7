import PostgresStore
import PushCore
import RelayCore

/// Which lists an audience gives: the shape of the condition selecting its devices. Each
/// statement that selects an audience has one text (and one prepared name) per shape.
struct AudienceShape: OptionSet, Hashable, Sendable {
    let rawValue: Int

    static let tags = AudienceShape(rawValue: 1)
    static let tagsAnd = AudienceShape(rawValue: 2)
    static let tagsNot = AudienceShape(rawValue: 4)
    static let aliases = AudienceShape(rawValue: 8)
    static let registrationIDs = AudienceShape(rawValue: 16)

    /// Every shape: `all` (no list) and each combination of lists.
    static let every = (0..<32).map(AudienceShape.init(rawValue:))

    /// Pushes naming devices (`Audience.isTargeted`).
    var isTargeted: Bool { !isDisjoint(with: [.aliases, .registrationIDs]) }

    /// The shape in a statement's name: `all`, or the lists given (`tag_and_not_alias_rid`).
    var code: String {
        let names: [(AudienceShape, String)] = [(.tags, "tag"), (.tagsAnd, "and"), (.tagsNot, "not"), (.aliases, "alias"), (.registrationIDs, "rid")]
        let given = names.filter { contains($0.0) }.map(\.1)
        return given.isEmpty ? "all" : given.joined(separator: "_")
    }
}

/// Which platforms' devices a statement selects, each delivered by its own service: iOS
/// devices of the message's APNs environment, Android devices (FCM), or both at once. A
/// resolving message's `resolve_platform`: a broadcast to both is cut iOS first, then Android
/// from the start (each pass one index range, `devices_fanout` or `devices_fanout_android`); a
/// targeted push's few devices are cut in one pass of both (`all`), a chunk per platform.
enum AudiencePlatforms: String, CaseIterable, Sendable {
    /// `voip` … `pushtotalk`: iOS devices of the environment holding a token of that
    /// `PushTokenKind`, for a push of that type (issue 29); their chunks' platform is the same.
    /// `la_start`: those holding a push-to-start token of a Live Activity start's attributes
    /// type; `la_update`: those holding an update token of a Live Activity update's or end's
    /// activity, not ended or dismissed there (issue 29).
    case ios, android, all, voip, location, complication, fileprovider, pushtotalk
    case liveActivityStart = "la_start"
    case liveActivity = "la_update"

    /// The platforms `request` delivers to; nil when none (`PushRequest.deliversToIOS`, `deliversToAndroid`).
    init?(_ request: PushRequest) {
        if let content = request.liveActivity {
            self = content.event == .start ? .liveActivityStart : .liveActivity
            return
        }
        switch (request.deliversToIOS, request.deliversToAndroid) {
        case (true, true): self = .all
        case (true, false): self = request.tokenKind.map(Self.init(tokenKind:)) ?? .ios
        case (false, true): self = .android
        case (false, false): return nil
        }
    }

    init(tokenKind: PushTokenKind) {
        switch tokenKind {
        case .voip: self = .voip
        case .location: self = .location
        case .complication: self = .complication
        case .fileprovider: self = .fileprovider
        case .pushtotalk: self = .pushtotalk
        }
    }

    /// The kind of token these devices are reached by; nil for notification tokens.
    var tokenKind: PushTokenKind? { PushTokenKind(rawValue: rawValue) }

    /// In a statement's name: nothing for iOS (the names iOS-only relays had), else `_android`,
    /// `_all`, `_voip`, and short ones for the other kinds and Live Activities (a name is at
    /// most 63 bytes).
    var code: String {
        switch self {
        case .ios: ""
        case .location: "_loc"
        case .complication: "_cpl"
        case .fileprovider: "_fp"
        case .pushtotalk: "_ptt"
        case .liveActivityStart: "_las"
        case .liveActivity: "_lau"
        case .android, .all, .voip: "_\(rawValue)"
        }
    }

    /// Whether the condition reads the message's environment (Android devices have none).
    var usesEnvironment: Bool { self != .android }

    /// The Live Activity tokens' platforms, whose devices are found through their tokens' table.
    var isLiveActivity: Bool { self == .liveActivityStart || self == .liveActivity }
}

/// What an audience binds in the statements that select its devices
/// (`AudienceStatements.condition`): its shape, and the lists it gives.
struct AudienceCondition {
    var shape: AudienceShape = []
    /// The given lists, in the order of the condition's placeholders.
    var lists: [(any PostgresBindable)?] = []

    init(_ audience: Audience) {
        guard case .filter(let filter) = audience else { return }
        func add(_ part: AudienceShape, _ values: [String]) {
            guard !values.isEmpty else { return }
            shape.insert(part)
            lists.append(SQLArray.text(values))
        }
        add(.tags, filter.tags)
        add(.tagsAnd, filter.tagsAnd)
        add(.tagsNot, filter.tagsNot)
        add(.aliases, filter.aliases)
        // Ids that cannot be ours match nothing (as ids of another app do).
        if !filter.registrationIDs.isEmpty {
            shape.insert(.registrationIDs)
            lists.append(SQLArray.text(filter.registrationIDs.filter(Self.isRegistrationID)))
        }
    }

    /// Registration ids are 32 lowercase hex digits (a uuid without dashes).
    static func isRegistrationID(_ raw: String) -> Bool {
        raw.utf8.count == 32 && raw.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
