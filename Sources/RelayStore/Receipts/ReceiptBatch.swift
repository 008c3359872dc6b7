import PushCore
import RelayCore

/// A validated `POST /client/v1/receipts` body: one receipt (`msg_id`, `event`, `at` beside
/// `registration_id`) or up to `maxReceipts` of them in `receipts`, in the order given.
public struct ReceiptBatch: Sendable, Equatable {
    public static let maxReceipts = 100

    public var registrationID: String
    public var receipts: [Receipt]

    /// - Throws: 1002 for a missing field, 1003 for a refused value, 1009 for an unknown key.
    public init(_ body: JSONObjectReader) throws(JPushError) {
        registrationID = try body.string("registration_id")
        guard let list = body.fields["receipts"] else {
            try body.rejectUnknownKeys(allowed: ["registration_id", "msg_id", "event", "at"])
            receipts = [try Receipt(body)]
            return
        }
        try body.rejectUnknownKeys(allowed: ["registration_id", "receipts"])
        guard case .array(let entries) = list, (1...Self.maxReceipts).contains(entries.count) else {
            throw JPushError.illegalValue("receipts must be a list of 1 to \(Self.maxReceipts) receipts")
        }
        receipts = []
        receipts.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let reader = try JSONObjectReader(entry, path: "receipts[\(index)].")
            try reader.rejectUnknownKeys(allowed: ["msg_id", "event", "at"])
            receipts.append(try Receipt(reader))
        }
    }
}
