import Foundation
import RelayCore

extension JSONValue {
    /// The value as Foundation objects, for `JSONSerialization` (responses and stored text).
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .object(let fields): fields.mapValues(\.foundationObject)
        }
    }

    /// Compact JSON with sorted keys.
    var jsonText: String {
        // Every JSONValue is representable: no NaN or infinity comes out of a JSON parser.
        let data = try! JSONSerialization.data(withJSONObject: foundationObject, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }
}
