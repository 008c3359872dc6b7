import Foundation
import RelayCore

/// The fields of the relay's answers that ctl computes with (progress, totals, shares),
/// decoded as types; everything else is shown as the relay wrote it.
enum CtlAnswerFields {
    /// `POST /v3/push`'s answer.
    struct Accepted: Decodable {
        var msgID: String

        enum CodingKeys: String, CodingKey { case msgID = "msg_id" }
    }

    /// One element of `GET /v3/messages/detail`: how far the push's fan-out is.
    struct Progress: Decodable {
        struct Details: Decodable {
            struct Notification: Decodable {
                var target, sent: Int
            }

            var notification: Notification
        }

        var details: Details
        var state: String
        var pending, failed, invalidatedTokens, expired: Int

        enum CodingKeys: String, CodingKey {
            case details, state, pending, failed, invalidatedTokens = "invalidated_tokens", expired
        }

        /// Done or withdrawn: no target will get an outcome any more.
        var isFinished: Bool { state == "done" || state == "withdrawn" }
        /// Failed, invalidated and expired.
        var notDelivered: Int { failed + invalidatedTokens + expired }
    }

    /// `POST /v3/devices/import`'s answer for one batch.
    struct ImportSummary: Decodable {
        struct Rejection: Decodable {
            /// The line's number in the batch.
            var line: Int
            var reason: String
        }

        var accepted, rejected, created, updated: Int
        var rejectedLines: [Rejection]

        enum CodingKeys: String, CodingKey {
            case accepted, rejected, created, updated, rejectedLines = "rejected_lines"
        }
    }

    /// `GET /admin/v1/messages/{msg_id}`'s funnel: each step's count and the failures by reason.
    struct Funnel: Decodable {
        struct Steps: Decodable {
            var target, sent, received, opened, failed, invalidated, expired, withdrawn, pending: Int
            var failedByReason: [String: Int]

            enum CodingKeys: String, CodingKey {
                case target, sent, received, opened, failed, invalidated, expired, withdrawn, pending, failedByReason = "failed_by_reason"
            }

            /// The steps top to bottom, named as the answer names them.
            var counts: [(step: String, count: Int)] {
                [("target", target), ("sent", sent), ("received", received), ("opened", opened), ("failed", failed),
                 ("invalidated", invalidated), ("expired", expired), ("withdrawn", withdrawn), ("pending", pending)]
            }
        }

        var funnel: Steps
    }
}

extension JSONValue {
    /// The answer's fields ctl computes with, as `T`.
    ///
    /// - Throws: `CtlError.failed` when the answer is not of that shape.
    func decoded<T: Decodable>(_ type: T.Type, _ what: String) throws(CtlError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(CanonicalJSON.bytes(self)))
        } catch {
            throw .failed("the relay's answer to \(what) is not what ctl expects: \(error)")
        }
    }
}
