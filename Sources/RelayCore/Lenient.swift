/// A field of another service's JSON answer (APNs, FCM, an OAuth2 token endpoint) where a
/// value of another type counts as absent instead of failing the whole answer: one odd
/// field does not hide the others. Absent and `null` are absent too.
@propertyWrapper
public struct Lenient<Value: Decodable>: Decodable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try? decoder.singleValueContainer().decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// Chosen by synthesized `Decodable` conformances for `@Lenient` fields: a missing key
    /// is an absent value, not an error.
    public func decode<Value>(_ type: Lenient<Value>.Type, forKey key: Key) throws -> Lenient<Value> {
        try decodeIfPresent(type, forKey: key) ?? Lenient(wrappedValue: nil)
    }
}
