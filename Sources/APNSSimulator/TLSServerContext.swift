import CSystem
import Foundation

/// The simulator's OpenSSL server context: TLS 1.2 or later, ALPN `h2` (and `http/1.1` for
/// a service that speaks it), and a certificate either loaded from PEM files or generated at start.
///
/// Thread rule: configured in `init`, then only used to create `SSL` objects, which
/// OpenSSL allows from any thread.
final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The certificate served, in PEM.
    let certificatePEM: String

    /// - Parameters:
    ///   - certificatePath: PEM certificate chain; with `keyPath`, or both `nil` to generate.
    ///   - keyPath: PEM private key.
    ///   - speaksHTTP1: ALPN may choose `http/1.1` for a client that does not offer `h2`.
    init(certificatePath: String?, keyPath: String?, speaksHTTP1: Bool = false) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSServerContext.failure("SSL_CTX_new") }
        self.context = context
        do {
            guard CSystem_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
                throw TLSServerContext.failure("setting TLS 1.2 as the minimum")
            }
            CSystem_apns_sim_tune_context(context)
            if speaksHTTP1 {
                SSL_CTX_set_alpn_select_cb(context, selectH2OrHTTP1, nil)
            } else {
                SSL_CTX_set_alpn_select_cb(context, selectH2, nil)
            }
            if let certificatePath, let keyPath {
                guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
                    throw TLSServerContext.failure("loading the certificate \(certificatePath)")
                }
                guard SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1,
                      SSL_CTX_check_private_key(context) == 1 else {
                    throw TLSServerContext.failure("loading the key \(keyPath)")
                }
                certificatePEM = try String(contentsOfFile: certificatePath, encoding: .utf8)
            } else {
                let identity = try SelfSignedIdentity()
                defer { identity.free() }
                guard SSL_CTX_use_certificate(context, identity.certificate) == 1,
                      SSL_CTX_use_PrivateKey(context, identity.key) == 1 else {
                    throw TLSServerContext.failure("using the generated certificate")
                }
                certificatePEM = try identity.certificatePEM()
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// An error naming the step, with OpenSSL's first queued error.
    static func failure(_ step: String) -> APNSSimulatorError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return APNSSimulatorError("TLS: \(step) failed") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let detail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return APNSSimulatorError("TLS: \(step) failed: \(detail)")
    }
}

/// ALPN: pick `h2` from the client's list, or refuse the handshake (APNs speaks only HTTP/2).
private func selectH2(
    ssl: OpaquePointer?, out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, outLength: UnsafeMutablePointer<UInt8>?,
    input: UnsafePointer<UInt8>?, inputLength: UInt32, argument: UnsafeMutableRawPointer?
) -> Int32 {
    selectProtocol(["h2"], out: out, outLength: outLength, input: input, inputLength: inputLength)
}

/// ALPN: `h2` when the client offers it, else `http/1.1` (Google's endpoints speak both).
private func selectH2OrHTTP1(
    ssl: OpaquePointer?, out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, outLength: UnsafeMutablePointer<UInt8>?,
    input: UnsafePointer<UInt8>?, inputLength: UInt32, argument: UnsafeMutableRawPointer?
) -> Int32 {
    selectProtocol(["h2", "http/1.1"], out: out, outLength: outLength, input: input, inputLength: inputLength)
}

/// Points `out` at the first of `preferred` found in the client's list (inside that list,
/// as OpenSSL requires), or refuses the handshake.
private func selectProtocol(
    _ preferred: [StaticString], out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    outLength: UnsafeMutablePointer<UInt8>?, input: UnsafePointer<UInt8>?, inputLength: UInt32
) -> Int32 {
    guard let input, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let offered = UnsafeBufferPointer(start: input, count: Int(inputLength))
    for name in preferred {
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var index = 0
        while index < offered.count {
            let length = Int(offered[index])
            let start = index + 1
            if length == wanted.count, start + length <= offered.count, offered[start..<(start + length)].elementsEqual(wanted) {
                out.pointee = input + start
                outLength.pointee = UInt8(length)
                return SSL_TLSEXT_ERR_OK
            }
            index = start + length
        }
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}

/// A fresh P-256 key and a self-signed certificate for `127.0.0.1`, `::1` and `localhost`,
/// valid from an hour ago for ten years.
private struct SelfSignedIdentity {
    let key: OpaquePointer
    let certificate: OpaquePointer

    init() throws {
        guard let keyContext = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw TLSServerContext.failure("creating a key context")
        }
        defer { EVP_PKEY_CTX_free(keyContext) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(keyContext) == 1,
              EVP_PKEY_CTX_set_group_name(keyContext, "P-256") == 1,
              EVP_PKEY_generate(keyContext, &generated) == 1, let generated else {
            throw TLSServerContext.failure("generating a P-256 key")
        }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(generated)
            throw TLSServerContext.failure("X509_new")
        }
        key = generated
        self.certificate = certificate
        do {
            try fill()
        } catch {
            free()
            throw error
        }
    }

    private func fill() throws {
        var serial = [UInt8](repeating: 0, count: 8)
        _ = RAND_bytes(&serial, Int32(serial.count))
        let serialNumber = serial.reduce(0) { ($0 << 8) | Int($1) } & Int(Int32.max)
        guard X509_set_version(certificate, 2) == 1,
              ASN1_INTEGER_set(X509_get_serialNumber(certificate), serialNumber) == 1,
              X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), 10 * 365 * 86400) != nil,
              X509_set_pubkey(certificate, key) == 1,
              let name = X509_get_subject_name(certificate),
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "localhost", -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1
        else { throw TLSServerContext.failure("filling in the certificate") }
        var extensionContext = X509V3_CTX()
        X509V3_set_ctx(&extensionContext, certificate, certificate, nil, nil, 0)
        let extensions: [(Int32, String)] = [
            (NID_subject_alt_name, "IP:127.0.0.1,IP:::1,DNS:localhost"),
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_subject_key_identifier, "hash"),
        ]
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &extensionContext, nid, value) else {
                throw TLSServerContext.failure("building the extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else { throw TLSServerContext.failure("adding \(value)") }
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSServerContext.failure("signing the certificate") }
    }

    func certificatePEM() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSServerContext.failure("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { throw TLSServerContext.failure("writing the certificate") }
        var data: UnsafeMutablePointer<CChar>?
        let length = CSystem_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw TLSServerContext.failure("reading the certificate") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    func free() {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }
}
