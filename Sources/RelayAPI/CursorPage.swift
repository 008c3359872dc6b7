import RelayCore

/// A page of a cursor listing: the items under their name, and `next_cursor` (null on the
/// last page).
struct CursorPage<Item: Encodable>: Encodable {
    var itemsKey: String
    var items: [Item]
    var next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        try container.encode(items, forKey: AnswerKey(itemsKey))
        try container.encode(next, forKey: "next_cursor")
    }
}
