import HTTPServer
import RelayCore
import RelayStore

/// `POST /client/v1/receipts`: a device (its own secret) reports that messages reached it or
/// were opened, one receipt or a batch, counted once per (message, device, event). The
/// answer counts what was recorded, already known and dropped, and says nothing about a
/// msg_id beyond "not one of your app's" (an unknown id and another app's are both dropped).
struct ClientReceiptRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let authenticator = ClientAuthenticator(keys: ClientKeyRepository(pool: context.dependencies.pool), gate: context.authenticationGate)
        let receipts = ReceiptRepository(pool: context.dependencies.pool)
        let retentionDays = context.dependencies.retentionDays

        router.add("POST", "/client/v1/receipts", context.clientHandler { request, _ in
            let body = try JSONObjectReader(request.body)
            // The credentials are checked before the receipts are read: a caller without
            // them learns nothing but the body's outline.
            let device = try await authenticator.device(request, rid: try body.string("registration_id"))
            let batch = try ReceiptBatch(body)
            let tally = try await receipts.record(batch.receipts, of: device, retentionDays: retentionDays)
            return try jsonResponse(200, encoding: tally)
        })
    }
}
