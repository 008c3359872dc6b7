import RelayCore

/// The body of `POST /v3/push/batch/regid/single` and `/v3/push/batch/alias/single`:
/// `{"pushlist":{"<cid>":{platform, target, notification, message, options}}}`, where each
/// entry pushes to one registration id or one alias and succeeds or fails on its own.
public enum BatchPushList {
    /// What `target` names.
    public enum Target: Sendable, Hashable {
        case registrationID
        case alias
    }

    /// One entry, in cid order.
    public struct Entry: Sendable, Equatable {
        public var cid: String
        public var outcome: Outcome
    }

    public enum Outcome: Sendable, Equatable {
        /// `body` is the entry as a plain push body (`audience` instead of `target`, `cid`
        /// added), for storing: `PushRequest.parse(body)` gives `request` again.
        case accepted(PushRequest, body: [UInt8])
        /// The reply for this cid: `{"<cid>":{"error":{code,message}}}`.
        case rejected(JPushError)
    }

    /// Parses a pushlist; each entry's errors are its own.
    ///
    /// - Throws: for the body as a whole: not an object, unknown keys (1009), no or an empty
    ///   `pushlist` (1002), more than `PushLimits.batchEntries` entries (1003).
    public static func parse(_ body: [UInt8], target: Target) throws(JPushError) -> [Entry] {
        let reader = try JSONObjectReader(body)
        try reader.rejectUnknownKeys(allowed: ["pushlist"])
        guard let list = try reader.optionalObject("pushlist"), !list.fields.isEmpty else {
            throw JPushError.missingParameter("pushlist is required and must name at least one cid")
        }
        guard list.fields.count <= PushLimits.batchEntries else {
            throw JPushError.illegalValue("pushlist has \(list.fields.count) entries; at most \(PushLimits.batchEntries) are allowed")
        }
        return CanonicalJSON.sorted(list.fields.keys).map { cid in
            Entry(cid: cid, outcome: outcome(cid: cid, entry: list.fields[cid]!, path: list.name(cid) + ".", target: target))
        }
    }

    private static func outcome(cid: String, entry: JSONValue, path: String, target: Target) -> Outcome {
        do throws(JPushError) {
            try PushRequest.checkCID(cid, field: "pushlist key \(InputEcho.quoted(cid))")
            let reader = try JSONObjectReader(entry, path: path)
            let request = try PushRequest(reader, keys: .pushlistEntry, audience: try audience(reader, target: target), cid: cid)
            var fields = reader.fields
            fields["target"] = nil
            fields["audience"] = audienceJSON(request.audience)
            fields["cid"] = .string(cid)
            return .accepted(request, body: CanonicalJSON.bytes(.object(fields)))
        } catch {
            return .rejected(error)
        }
    }

    private static func audience(_ reader: JSONObjectReader, target: Target) throws(JPushError) -> Audience {
        let value = try reader.string("target")
        switch target {
        case .registrationID:
            try Audience.checkRegistrationID(value, field: reader.name("target"))
            return .filter(AudienceFilter(registrationIDs: [value]))
        case .alias:
            try AudienceLabel.validate(value, field: reader.name("target"))
            return .filter(AudienceFilter(aliases: [value]))
        }
    }

    private static func audienceJSON(_ audience: Audience) -> JSONValue {
        guard case .filter(let filter) = audience else { return .string("all") }
        if let rid = filter.registrationIDs.first { return .object(["registration_id": .array([.string(rid)])]) }
        return .object(["alias": .array(filter.aliases.map(JSONValue.string))])
    }
}
