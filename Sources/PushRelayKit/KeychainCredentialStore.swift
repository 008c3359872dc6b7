#if canImport(Security)
import Foundation
import Security

/// The credentials as one generic-password Keychain item. Give the app and its Notification
/// Service Extension the same `accessGroup` (a Keychain Sharing group of both), so the
/// extension reports receipts with the secret the app stored. Readable after the first
/// unlock: the extension runs while the phone is locked.
public struct KeychainCredentialStore: DeviceCredentialStore {
    public let service: String
    public let accessGroup: String?

    public init(service: String = "PushRelayKit.device", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// The item, as the Keychain's API wants it named.
    private var item: [String: Any] {
        var item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: "credentials",
        ]
        if let accessGroup { item[kSecAttrAccessGroup as String] = accessGroup }
        return item
    }

    public func load() -> DeviceCredentials? {
        var query = item
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return try? JSONDecoder().decode(DeviceCredentials.self, from: data)
    }

    public func save(_ credentials: DeviceCredentials?) {
        guard let credentials, let data = try? JSONEncoder().encode(credentials) else {
            SecItemDelete(item as CFDictionary)
            return
        }
        // Updated in place, so the extension never reads between a delete and an add.
        let change: [String: Any] = [kSecValueData as String: data]
        if SecItemUpdate(item as CFDictionary, change as CFDictionary) == errSecItemNotFound {
            var added = item
            added[kSecValueData as String] = data
            added[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            SecItemAdd(added as CFDictionary, nil)
        }
    }
}
#endif
