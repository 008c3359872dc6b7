import RelayCore

/// `options`.
public struct PushOptions: Sendable, Equatable {
    /// Echoed in the reply as a string.
    public var sendno: Int
    /// Seconds APNs keeps trying; 0 means "now or never".
    public var timeToLive: Int
    /// Which environment's devices are targeted: true production, false sandbox. Absent
    /// means production, as JPush's API documents it (its SDKs' examples send false, so a
    /// development setup must say so explicitly). Also accepts 0/1.
    public var apnsProduction: Bool
    /// At most 64 bytes, a valid header value (`HTTPFieldValue`).
    public var apnsCollapseID: String?
    /// `apns-priority` (10, 5 or 1); nil sends the push type's default (10, or 5 for a
    /// background push). `APNSPayloadBuilder` refuses one its push type may not use.
    public var apnsPriority: Int?
    /// The message this one replaces on the device (sent with that message's collapse id).
    public var overrideMsgID: MessageID?
    /// Minutes over which a broadcast is spread; 0 sends as fast as possible.
    public var bigPushDuration: Int
    /// `third_party_channel`: what this relay uses of the phone makers' channel options.
    public var thirdPartyChannels = ThirdPartyChannels()

    public init(
        sendno: Int = 0, timeToLive: Int = PushLimits.defaultTimeToLive, apnsProduction: Bool = true,
        apnsCollapseID: String? = nil, overrideMsgID: MessageID? = nil, bigPushDuration: Int = 0
    ) {
        self.sendno = sendno
        self.timeToLive = timeToLive
        self.apnsProduction = apnsProduction
        self.apnsCollapseID = apnsCollapseID
        self.overrideMsgID = overrideMsgID
        self.bigPushDuration = bigPushDuration
    }

    /// - Parameter ignored: gets the paths of the parts not delivered (`options.classification`,
    ///   `options.third_party_channel.xiaomi`, …).
    static func parse(_ reader: JSONObjectReader?, ignored: inout [String]) throws(JPushError) -> PushOptions {
        var options = PushOptions()
        guard let reader else { return options }
        ignored += try PushBodyKeys.options.check(reader)
        options.sendno = try sendno(reader)
        options.timeToLive = try reader.optionalInt("time_to_live", in: 0...PushLimits.timeToLive) ?? PushLimits.defaultTimeToLive
        options.apnsProduction = try reader.optionalFlag("apns_production") ?? true
        if let collapseID = try reader.optionalString("apns_collapse_id"), !collapseID.isEmpty {
            guard collapseID.utf8.count <= PushLimits.collapseIDBytes else {
                throw JPushError.illegalValue(
                    "\(reader.name("apns_collapse_id")) is \(collapseID.utf8.count) bytes; at most \(PushLimits.collapseIDBytes) are allowed")
            }
            // Sent as the apns-collapse-id header: nghttp2 and APNs would refuse it later.
            if let problem = HTTPFieldValue.problem(collapseID) {
                throw JPushError.illegalValue("\(reader.name("apns_collapse_id")) \(problem)")
            }
            options.apnsCollapseID = collapseID
        }
        if let priority = try reader.optionalInt("apns_priority", in: 1...10) {
            guard [10, 5, 1].contains(priority) else {
                throw JPushError.illegalValue("\(reader.name("apns_priority")) must be 10, 5 or 1, got \(priority)")
            }
            options.apnsPriority = priority
        }
        if let value = reader.fields["override_msg_id"], value != .null {
            options.overrideMsgID = try MessageID.parse(value, field: reader.name("override_msg_id"))
        }
        options.bigPushDuration = try reader.optionalInt("big_push_duration", in: 0...PushLimits.bigPushDuration) ?? 0
        if let channels = try reader.optionalObject("third_party_channel") {
            options.thirdPartyChannels = try ThirdPartyChannels.parse(channels, ignored: &ignored)
        }
        return options
    }

    /// `sendno`: a non-negative integer, or (leniently) its decimal text.
    private static func sendno(_ reader: JSONObjectReader) throws(JPushError) -> Int {
        let value = reader.fields["sendno"] ?? .null
        let number: Int64?
        switch value {
        case .null: return 0
        case .number(let given): number = given.int64
        case .string(let text) where text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): number = Int64(text)
        default: number = nil
        }
        guard let number, number >= 0, number <= Int64(Int32.max) else {
            throw JPushError.illegalValue("\(reader.name("sendno")) must be an integer from 0 to \(Int32.max), got \(value.shortText)")
        }
        return Int(number)
    }
}
