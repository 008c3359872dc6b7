/// A `text[]` parameter in PostgreSQL's array input syntax (`{"a","b"}`), bound as one
/// text value and cast in SQL (`$2::text[]`).
public enum PostgresArrayLiteral {
    public static func text(_ values: [String]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            literal += "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }

}
