import Foundation

/// The `apns-id` of one device's copy of a message, derived from the two ids so every
/// attempt and every re-send after a crash carries the same one, with nothing to store.
///
/// A version-8 UUID whose 122 free bits hold the msg_id (63 bits; it is positive) and the
/// low 59 bits of the device id: distinct for distinct pairs while device ids stay below
/// 2^59, which a sequence never reaches.
public enum APNSNotificationID {
    public static func make(msgID: MessageID, deviceID: Int64) -> UUID {
        let message = UInt64(msgID.rawValue)
        let device = UInt64(bitPattern: deviceID) & ((1 << 59) - 1)
        // The 122-bit value message << 59 | device, as two words.
        let high = message >> 5
        let low = message << 59 | device
        let fieldA = (high >> 10) & ((1 << 48) - 1)
        let fieldB = (high << 2 | low >> 62) & 0xFFF
        let fieldC = low & ((1 << 62) - 1)
        let upper = fieldA << 16 | 0x8 << 12 | fieldB
        let lower = 0b10 << 62 | fieldC
        let b = withUnsafeBytes(of: upper.bigEndian) { Array($0) } + withUnsafeBytes(of: lower.bigEndian) { Array($0) }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
