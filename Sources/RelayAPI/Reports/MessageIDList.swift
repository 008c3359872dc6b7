import Foundation
import PushCore
import RelayCore

/// The `msg_ids=a,b,c` parameter of the report calls: at most 100 msg_ids, in the order
/// given, each once.
enum MessageIDList {
    static let maxCount = 100

    /// - Parameters:
    ///   - raw: the query value; spaces around ids are ignored, and so are empty items
    ///     (a trailing comma).
    /// - Throws: 3002 when it is missing, empty or names something that is not a msg_id;
    ///   3005 for more than 100 ids.
    static func parse(_ raw: String?) throws(JPushError) -> [MessageID] {
        guard let raw else { throw ReportFamily.invalid("msg_ids is required: up to \(maxCount) msg_ids separated by commas") }
        let items = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw ReportFamily.invalid("msg_ids must name at least one msg_id") }
        guard items.count <= maxCount else {
            throw ReportFamily.tooMany("msg_ids has \(items.count) msg_ids; at most \(maxCount) are allowed")
        }
        var ids: [MessageID] = []
        var seen: Set<MessageID> = []
        for item in items {
            guard let id = MessageID(item) else {
                throw ReportFamily.invalid("msg_ids: \"\(item.prefix(64))\" is not a msg_id (a positive 64-bit integer)")
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }
}
