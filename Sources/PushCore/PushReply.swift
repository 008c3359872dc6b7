import RelayCore

/// The reply to an accepted push: `{"msg_id":"…","sendno":"…"}`.
public enum PushReply {
    public static func body(sendno: Int, msgID: MessageID) -> [UInt8] {
        CanonicalJSON.bytes(.object(["sendno": .string(String(sendno)), "msg_id": .string(msgID.description)]))
    }
}
