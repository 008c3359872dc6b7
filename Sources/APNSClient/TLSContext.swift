import CSystem
import Foundation
import Synchronization

/// The OpenSSL client context APNs connections are made from (with token auth, every
/// client of the process with the same CA file shares one: `APNSClientResources`), and
/// webhooks' HTTPS connections (ALPN `http/1.1`, no client certificate).
///
/// TLS 1.2 or later, ALPN `h2` by default, the peer verified against the system CAs plus an optional
/// extra CA file, and for certificate auth the client certificate and key. The last session
/// ticket of each server is kept and offered by the next connection to it, so a reconnect
/// (after an idle close) resumes the session instead of a full handshake.
/// Thread rule: configured once in `init`; afterwards only `SSL_new` reads it, which
/// OpenSSL allows from any thread; the kept sessions are behind a lock.
public final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// A server's last resumable session, one per `host:port`, alive as long as the context.
    final class SessionSlot: Sendable {
        /// `@unchecked`: reached only under the lock; an `SSL_SESSION` is reference counted and
        /// may be offered by connections on any thread.
        struct Kept: @unchecked Sendable { var session: OpaquePointer? }
        let kept = Mutex(Kept())
        deinit { kept.withLock { if let session = $0.session { SSL_SESSION_free(session) } } }
    }
    private let slots = Mutex<[String: SessionSlot]>([:])
    /// Where a connection's `SSL` points to its server's slot, for the new-session callback.
    private static let slotIndex = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil, nil)

    /// - Parameter alpn: the protocols offered, most wanted first.
    public init(caFile: String?, clientCertificatePEM: String?, clientKeyPEM: String?, alpn: [String] = ["h2"]) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw APNSCredentialError.badCertificate("cannot create a TLS context")
        }
        self.context = context
        CSystem_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        let wire = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
            throw APNSCredentialError.badCertificate("cannot set ALPN")
        }
        SSL_CTX_set1_cert_store(context, try TrustStore.shared(caFile: caFile).store)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // Client-side caching only calls back with each new session; the slots keep them.
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE), nil)
        SSL_CTX_sess_set_new_cb(context) { ssl, session in
            guard let raw = SSL_get_ex_data(ssl, TLSContext.slotIndex) else { return 0 }
            let slot = Unmanaged<SessionSlot>.fromOpaque(raw).takeUnretainedValue()
            let replaced = slot.kept.withLock { kept in
                defer { kept.session = session }
                return SessionSlot.Kept(session: kept.session)
            }
            if let old = replaced.session { SSL_SESSION_free(old) }
            return 1  // the slot keeps the reference OpenSSL hands over
        }
        if let clientCertificatePEM, let clientKeyPEM {
            try useClientCertificate(clientCertificatePEM, key: clientKeyPEM)
        }
    }

    deinit { SSL_CTX_free(context) }

    /// A new `SSL` for `host`: SNI for names, the peer checked against the name or IP, and
    /// the server's last session offered for resumption.
    public func makeSSL(host: String, port: Int) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        let slot = slots.withLock { slots in
            if let slot = slots["\(host):\(port)"] { return slot }
            let slot = SessionSlot()
            slots["\(host):\(port)"] = slot
            return slot
        }
        SSL_set_ex_data(ssl, TLSContext.slotIndex, Unmanaged.passUnretained(slot).toOpaque())
        slot.kept.withLock { kept in
            // SSL_set_session takes a reference of its own.
            if let session = kept.session, SSL_SESSION_is_resumable(session) == 1 { SSL_set_session(ssl, session) }
        }
        if TLSContext.isIPAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            CSystem_SSL_set_tlsext_host_name(ssl, host)
            SSL_set1_host(ssl, host)
        }
        return ssl
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Loads the leaf certificate, any intermediates after it, and the key.
    private func useClientCertificate(_ certificatePEM: String, key keyPEM: String) throws {
        defer { ERR_clear_error() }
        let certificates = try withMemoryBIO(certificatePEM) { bio -> [OpaquePointer] in
            var loaded: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { loaded.append(certificate) }
            return loaded
        }
        defer { certificates.forEach { X509_free($0) } }
        guard let leaf = certificates.first, SSL_CTX_use_certificate(context, leaf) == 1 else {
            throw APNSCredentialError.badCertificate("no usable certificate in the PEM")
        }
        for intermediate in certificates.dropFirst() {
            CSystem_SSL_CTX_add1_chain_cert(context, intermediate)
        }
        guard let key = try withMemoryBIO(keyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw APNSCredentialError.badKey("no private key in the PEM")
        }
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw APNSCredentialError.badCertificate("the key does not match the certificate")
        }
    }

    private func withMemoryBIO<R>(_ text: String, _ body: (OpaquePointer) throws -> R) throws -> R {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                throw APNSCredentialError.badCertificate("out of memory")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }
}
