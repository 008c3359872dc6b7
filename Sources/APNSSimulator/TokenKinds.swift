import APNSClient

/// Which device tokens are of which kind (PushKit VoIP, location, complication, File Provider,
/// Push to Talk, Live Activity), for the rule that a token only takes its own kind of push.
///
/// Real APNs knows each token's app and kind, and answers 400 DeviceTokenNotForTopic to a
/// push whose topic the token does not belong to: an alert token sent a `voip` push, a VoIP
/// token sent an alert, a location token sent a `pushtotalk` push. The simulator cannot know,
/// so tests declare each kind's tokens by a prefix (`--token-kind-prefix KIND=HEX`,
/// `--voip-token-prefix`); a token matching none is a notification token (alert and background
/// pushes). Without any prefix every token takes every push type.
public struct TokenKinds: Sendable, Equatable {
    /// The push types that go to a token of their own kind.
    public static let kinds: Set<String> = ["voip", "location", "complication", "fileprovider", "pushtotalk", "liveactivity"]

    /// Push type → the prefix (lowercase hex) of its tokens.
    public let prefixes: [String: String]

    public init(prefixes: [String: String] = [:]) {
        self.prefixes = prefixes.compactMapValues { $0.isEmpty ? nil : $0.lowercased() }
    }

    /// DeviceTokenNotForTopic when `token`'s kind and the push type disagree, else nil.
    public func reason(token: String, pushType: String?) -> APNSReason? {
        guard !prefixes.isEmpty else { return nil }
        // The longest matching prefix decides, so kinds may share a first digit.
        let tokenKind = prefixes.filter { ScriptedBehaviour.hasPrefix(token, $0.value) }.max { $0.value.count < $1.value.count }?.key
        let pushKind = pushType.flatMap { Self.kinds.contains($0) ? $0 : nil }
        return tokenKind == pushKind ? nil : .deviceTokenNotForTopic
    }
}
