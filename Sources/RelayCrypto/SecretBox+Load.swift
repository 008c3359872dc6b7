import Foundation
import Glibc

extension SecretBox {
    /// The relay's sealing key.
    ///
    /// - Parameters:
    ///   - environmentValue: `PUSHRELAY_SECRET_KEY` when set: 64 hex characters or base64 of
    ///     32 bytes. It wins over the file.
    ///   - keyFile: read when no environment value is given; created with 32 random bytes
    ///     and mode 0600 when missing. It may hold the 32 raw bytes, or hex/base64 text.
    /// - Throws: `SecretBoxError` naming what is wrong, never the key itself.
    public static func load(environmentValue: String?, keyFile: String) throws -> SecretBox {
        if let value = environmentValue?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
            guard let key = parseKeyText(value) else {
                throw SecretBoxError("PUSHRELAY_SECRET_KEY must be 64 hex characters or the base64 of 32 bytes")
            }
            return try SecretBox(key: key)
        }
        if let contents = try readKeyFile(keyFile) {
            return try SecretBox(key: contents)
        }
        let key = SecureRandom.bytes(keyLength)
        if try createKeyFile(keyFile, key: key) {
            return try SecretBox(key: key)
        }
        // Another process created the file first: use its key, so both agree.
        guard let contents = try readKeyFile(keyFile) else {
            throw SecretBoxError("secret key file \(keyFile) vanished while it was being created")
        }
        return try SecretBox(key: contents)
    }

    /// 64 hex characters or base64 of exactly 32 bytes.
    static func parseKeyText(_ text: String) -> [UInt8]? {
        if text.utf8.count == keyLength * 2, let bytes = Hex.decode(text) { return bytes }
        if let data = Data(base64Encoded: text), data.count == keyLength { return [UInt8](data) }
        return nil
    }

    /// The key in `path`, or nil when there is no such file.
    private static func readKeyFile(_ path: String) throws -> [UInt8]? {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch CocoaError.fileReadNoSuchFile {
            return nil
        } catch {
            throw SecretBoxError("cannot read secret key file \(path): \(error.localizedDescription)")
        }
        if data.count == keyLength { return [UInt8](data) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let key = parseKeyText(text) { return key }
        throw SecretBoxError("secret key file \(path) must hold 32 raw bytes, 64 hex characters or the base64 of 32 bytes (it holds \(data.count) bytes)")
    }

    /// Writes `key` to `path` with mode 0600 without ever exposing a partial file: a
    /// private temporary file is filled, synced, then hard-linked into place.
    ///
    /// - Returns: false when `path` already exists (someone else won the race).
    private static func createKeyFile(_ path: String, key: [UInt8]) throws -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw SecretBoxError("cannot create directory \(directory) for the secret key file: \(error.localizedDescription)")
            }
        }
        let temporary = path + ".tmp-" + SecureRandom.hex(8)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SecretBoxError("cannot create secret key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        let wrote = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fchmod(fd, 0o600) == 0 && fsync(fd) == 0
        close(fd)
        guard wrote == key.count, synced else {
            throw SecretBoxError("cannot write secret key file \(path): \(String(cString: strerror(errno)))")
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw SecretBoxError("cannot create secret key file \(path): \(String(cString: strerror(errno)))")
        }
        return true
    }
}
