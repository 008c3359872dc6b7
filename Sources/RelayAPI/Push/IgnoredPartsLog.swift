import PushCore
import PushPipeline
import RelayCore

extension RouteContext {
    /// Logs the documented parts of a newly accepted push that this relay stores without
    /// delivering them (vendor channels, SMS, other platforms, …), so an operator can see why a
    /// part had no effect.
    func logIgnored(_ push: PushRequest, accepted: MessageStore.Accepted, appKey: String) {
        guard accepted.isNew, !push.ignored.isEmpty else { return }
        logger.info("push accepted with parts this relay does not deliver", [
            "app_key": appKey, "msg_id": accepted.msgID.description, "ignored": push.ignored.joined(separator: ","),
        ])
    }
}
