import CSystem
import Synchronization

/// The CAs an APNs server's certificate is checked against: the system's plus an optional
/// extra file, loaded once per process and shared by every client's TLS context. Loading
/// the system's took ~16 ms, paid by every app's first push before.
///
/// Thread rule: filled once; OpenSSL locks an `X509_STORE` internally for verification.
final class TrustStore: @unchecked Sendable {
    let store: OpaquePointer

    private init(caFile: String?) throws {
        guard let store = X509_STORE_new() else { throw APNSCredentialError.badCertificate("cannot create a trust store") }
        X509_STORE_set_default_paths(store)
        if let caFile, X509_STORE_load_locations(store, caFile, nil) != 1 {
            ERR_clear_error()
            X509_STORE_free(store)
            throw APNSCredentialError.badCertificate("cannot read CA file \(caFile)")
        }
        self.store = store
    }

    deinit { X509_STORE_free(store) }

    /// Stores by extra CA file ("" for none): there is one per configuration in practice.
    private static let stores = Mutex<[String: TrustStore]>([:])

    /// The store for `caFile`, loaded on first use.
    static func shared(caFile: String?) throws -> TrustStore {
        try stores.withLock { stores in
            if let store = stores[caFile ?? ""] { return store }
            let store = try TrustStore(caFile: caFile)
            stores[caFile ?? ""] = store
            return store
        }
    }
}
