import PushCore
import RelayCore

/// What a device reports about one message: it reached the phone, or the user opened it.
public enum ReceiptEvent: String, Sendable, CaseIterable {
    case received, opened
}

/// One receipt of `POST /client/v1/receipts`, validated.
public struct Receipt: Sendable, Equatable {
    /// The latest `at` accepted (the year 5138): beyond it is not Unix seconds (milliseconds,
    /// most likely), and PostgreSQL's timestamps would overflow long before a Double does.
    static let latestAt = 1e11

    public var msgID: MessageID
    public var event: ReceiptEvent
    /// Unix seconds when it happened, as the app says; nil: when the receipt arrives.
    public var at: Double?

    public init(msgID: MessageID, event: ReceiptEvent, at: Double? = nil) {
        self.msgID = msgID
        self.event = event
        self.at = at
    }

    /// Reads `msg_id` (a string or a number), `event` and the optional `at` of `body`; other
    /// keys of `body` are the caller's to check.
    ///
    /// - Throws: 1002 for a missing field, 1003 for a refused value, naming it with the
    ///   reader's path.
    public init(_ body: JSONObjectReader) throws(JPushError) {
        guard let id = body.fields["msg_id"], id != .null else { throw JPushError.missingParameter("\(body.path)msg_id is required") }
        msgID = try MessageID.parse(id, field: body.path + "msg_id")
        let event = try body.string("event")
        guard let known = ReceiptEvent(rawValue: event) else {
            throw JPushError.illegalValue("\(body.path)event must be \"received\" or \"opened\", got \(InputEcho.quoted(event))")
        }
        self.event = known
        switch body.fields["at"] {
        case nil, .null?: at = nil
        case .number(let number)? where number.double >= 0 && number.double <= Self.latestAt: at = number.double
        case let other?:
            let given = if case .number(let number) = other { InputEcho.quoted(number.text) } else { other.typeName }
            throw JPushError.illegalValue("\(body.path)at must be Unix seconds (a number from 0 to \(Int(Self.latestAt))), got \(given)")
        }
    }
}
