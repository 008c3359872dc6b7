import PushCore
import RelayCore
import RelayStore

extension RouteContext {
    /// Of `appKeys`, those without a webhook: their pushes' `callback` is ignored, as the
    /// webhook's secret is what signs callbacks (docs/callback.md). Asked only for a push
    /// with a callback.
    func appsWithoutWebhook(_ appKeys: [String]) async throws -> Set<String> {
        let signed = try await WebhookRepository(pool: dependencies.pool, box: dependencies.secretBox).withWebhook(appKeys: appKeys)
        return Set(appKeys).subtracting(signed)
    }

    /// The push as answered to its app: its callback named in `ignored` when the app has no
    /// webhook (it is stored all the same, and sends nothing).
    func answering(_ push: PushRequest, appKey: String) async throws -> PushRequest {
        guard push.callback != nil, try await !appsWithoutWebhook([appKey]).isEmpty else { return push }
        return push.callbackIgnored()
    }
}
