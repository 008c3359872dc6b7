import CSystem

/// An OpenSSL library context with the default and legacy providers loaded, for reading
/// PKCS#12 files encrypted with RC2 or 3DES (what OpenSSL 1.x and macOS Keychain export).
///
/// The process-wide default context stays as it is; only the calling thread switches to
/// this one, for the duration of `run`. Lives for the life of the process.
/// Thread rule: OpenSSL library contexts are safe to use from any thread.
final class LegacyProvider: @unchecked Sendable {
    /// Nil when this OpenSSL has no legacy provider (legacy.so not installed).
    static let shared: LegacyProvider? = LegacyProvider()

    private let context: OpaquePointer

    private init?() {
        guard let context = OSSL_LIB_CTX_new() else { return nil }
        guard OSSL_PROVIDER_load(context, "default") != nil,
              OSSL_PROVIDER_load(context, "legacy") != nil else {
            ERR_clear_error()
            OSSL_LIB_CTX_free(context)
            return nil
        }
        self.context = context
    }

    /// Runs `body` with this context as the calling thread's default OpenSSL context.
    func run<R>(_ body: () -> R) -> R {
        let previous = OSSL_LIB_CTX_set0_default(context)
        defer { OSSL_LIB_CTX_set0_default(previous) }
        return body()
    }
}
