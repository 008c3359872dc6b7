import APNSClient

/// Which device tokens are PushKit VoIP tokens, for the rule that a token only takes its own
/// kind of push.
///
/// Real APNs knows each token's app and kind, and answers 400 DeviceTokenNotForTopic to a
/// push whose topic the token does not belong to: an alert token sent a `voip` push, or a
/// VoIP token sent an alert. The simulator cannot know, so tests declare the VoIP tokens by
/// a prefix (`--voip-token-prefix`); without one every token takes every push type.
public struct TokenKinds: Sendable, Equatable {
    /// Tokens starting with this (hex, any case) are VoIP tokens.
    public var voipPrefix: String?

    public init(voipPrefix: String? = nil) {
        self.voipPrefix = voipPrefix.flatMap { $0.isEmpty ? nil : $0.lowercased() }
    }

    /// DeviceTokenNotForTopic when `token`'s kind and the push type disagree, else nil.
    public func reason(token: String, pushType: String?) -> APNSReason? {
        guard let voipPrefix else { return nil }
        let isVoIPToken = ScriptedBehaviour.hasPrefix(token, voipPrefix)
        return isVoIPToken == (pushType == "voip") ? nil : .deviceTokenNotForTopic
    }
}
