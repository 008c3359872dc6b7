import RelayCore

/// The relay's answers as ctl holds them: passed on as they came (`--json`, with every
/// number as the relay wrote it), and read a few fields at a time for the tables, where a
/// field that is absent or of another type reads as nil. The fields ctl computes with are
/// decoded as types instead (`CtlAnswerFields`).
extension JSONValue {
    subscript(_ key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }

    /// The fields of an object; none for anything else.
    var fields: [String: JSONValue] {
        guard case .object(let fields) = self else { return [:] }
        return fields
    }

    /// The items of an array; none for anything else.
    var items: [JSONValue] {
        guard case .array(let items) = self else { return [] }
        return items
    }

    var text: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
