import Foundation
import PushCore
import RelayCore

/// The `msg_ids=a,b,c` parameter of the report calls: at most 100 msg_ids, in the order
/// given, each once (and `group_msgids`, at most 10, of the group report calls).
enum MessageIDList {
    static let maxCount = 100

    /// - Parameters:
    ///   - raw: the query value; spaces around ids are ignored, and so are empty items
    ///     (a trailing comma).
    ///   - name: the parameter's name, and `item` what it lists, for the errors.
    /// - Throws: 3002 when it is missing, empty or names something that is not a msg_id;
    ///   3005 for more than `maxCount` ids.
    static func parse(_ raw: String?, name: String = "msg_ids", item: String = "msg_id", maxCount: Int = maxCount) throws(JPushError) -> [MessageID] {
        guard let raw else { throw ReportFamily.invalid("\(name) is required: up to \(maxCount) \(item)s separated by commas") }
        let items = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw ReportFamily.invalid("\(name) must name at least one \(item)") }
        guard items.count <= maxCount else {
            throw ReportFamily.tooMany("\(name) has \(items.count) \(item)s; at most \(maxCount) are allowed")
        }
        var ids: [MessageID] = []
        var seen: Set<MessageID> = []
        for text in items {
            guard let id = MessageID(text) else {
                throw ReportFamily.invalid("\(name): \(InputEcho.quoted(text)) is not a \(item) (a positive 64-bit integer)")
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }
}
