import CSystem
import Foundation

/// Small helpers around OpenSSL's C API shared by this module's types.
///
/// Every helper frees what it allocates; callers free what they are handed.
enum OpenSSLSupport {
    /// Empties this thread's OpenSSL error queue, so one failure does not show up as the
    /// cause of a later, unrelated call on the same thread.
    static func clearErrors() {
        ERR_clear_error()
    }

    /// Runs `body` with a read-only memory BIO over `bytes`; nil when OpenSSL cannot make one.
    static func withReadBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) -> R) -> R? {
        bytes.withUnsafeBytes { raw -> R? in
            // BIO_new_mem_buf does not copy: the BIO must not outlive this closure.
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// The text `write` puts into a fresh memory BIO, or nil when `write` fails.
    static func text(_ write: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let length = CSystem_BIO_get_mem_data(bio, &data)
        guard length >= 0, let data else { return length == 0 ? "" : nil }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An ASN1_TIME (UTCTime or GeneralizedTime) as a Date.
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
