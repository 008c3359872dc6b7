import CSystem

/// The listener's OpenSSL server context, loaded once from PEM files and shared by every
/// loop: each connection gets an `SSL` of its own from it. Immutable after init, so any
/// thread may create connections from it.
final class ServerTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ files: HTTPServerConfiguration.TLSFiles) throws(HTTPServerError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .setupFailed("SSL_CTX_new") }
        guard SSL_CTX_use_certificate_chain_file(context, files.certificatePath) == 1 else {
            SSL_CTX_free(context)
            throw .setupFailed("cannot load the TLS certificate \(files.certificatePath)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, files.keyPath, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            throw .setupFailed("cannot load the TLS key \(files.keyPath), or it does not match the certificate")
        }
        pointer = context
    }

    deinit { SSL_CTX_free(pointer) }

    /// A new server-side `SSL` for one connection; its bufferevent owns and frees it.
    func makeConnection() -> OpaquePointer? { SSL_new(pointer) }
}
