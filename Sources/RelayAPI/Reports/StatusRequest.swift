import Foundation
import PushCore
import RelayCore

/// The body of `POST /v3/status/message`: `{"msg_id":…, "registration_ids":[…], "date":"yyyy-mm-dd"}`.
struct StatusRequest: Sendable, Equatable {
    static let maxRegistrationIDs = 1000

    var messageID: MessageID
    /// In the order given, each once.
    var registrationIDs: [String]

    /// - Throws: 3002 for a missing or malformed field, 3005 for more than 1000 registration ids.
    init(_ body: JSONObjectReader) throws(JPushError) {
        try body.rejectUnknownKeys(allowed: ["msg_id", "registration_ids", "date"])
        guard let rawID = body.fields["msg_id"], rawID != .null else { throw ReportFamily.invalid("msg_id is required") }
        do {
            messageID = try MessageID.parse(rawID, field: "msg_id")
        } catch {
            throw ReportFamily.invalid(error.message)
        }
        guard case .array(let items)? = body.fields["registration_ids"] else {
            throw ReportFamily.invalid("registration_ids is required: a list of up to \(Self.maxRegistrationIDs) registration ids")
        }
        guard !items.isEmpty else { throw ReportFamily.invalid("registration_ids must name at least one registration id") }
        guard items.count <= Self.maxRegistrationIDs else {
            throw ReportFamily.tooMany("registration_ids has \(items.count) registration ids; at most \(Self.maxRegistrationIDs) are allowed")
        }
        var ids: [String] = []
        var seen: Set<String> = []
        for item in items {
            guard case .string(let id) = item else { throw ReportFamily.invalid("registration_ids must be a list of strings, found \(item.typeName)") }
            if seen.insert(id).inserted { ids.append(id) }
        }
        registrationIDs = ids
        // Outcomes are kept per message, not per day, so the date only has to be well formed.
        if let date = try body.optionalString("date"), !Self.isDate(date) {
            throw ReportFamily.invalid("date must be a day as yyyy-mm-dd, got \(InputEcho.quoted(date))")
        }
    }

    private static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              let month = Int(parts[1]), let day = Int(parts[2]) else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
