import Foundation
import Testing
@testable import RelayCrypto

@Suite struct SecretBoxTests {
    let key = SecureRandom.bytes(32)
    let plaintext = Array("-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n".utf8)

    @Test func roundTrip() throws {
        let box = try SecretBox(key: key)
        let sealed = box.seal(plaintext, associatedData: Array("app-1".utf8))
        #expect(try box.open(sealed, associatedData: Array("app-1".utf8)) == plaintext)
        #expect(try box.open(box.seal([])) == [])
    }

    @Test func layoutIsVersionNonceCiphertextTag() throws {
        let box = try SecretBox(key: key)
        let sealed = box.seal(plaintext)
        #expect(sealed.count == 1 + 12 + plaintext.count + 16)
        #expect(sealed[0] == 1)
    }

    @Test func sealedBytesDoNotContainThePlaintext() throws {
        let box = try SecretBox(key: key)
        let sealed = box.seal(plaintext)
        // No 8-byte window of the plaintext survives in the output.
        for start in stride(from: 0, to: plaintext.count - 8, by: 1) {
            let window = Array(plaintext[start ..< start + 8])
            let found = (0 ... sealed.count - 8).contains { Array(sealed[$0 ..< $0 + 8]) == window }
            #expect(!found)
        }
    }

    @Test func eachSealUsesAFreshNonce() throws {
        let box = try SecretBox(key: key)
        let first = box.seal(plaintext)
        let second = box.seal(plaintext)
        #expect(first != second)
        #expect(first[1 ..< 13] != second[1 ..< 13])
    }

    @Test func everyTamperedByteIsDetected() throws {
        let box = try SecretBox(key: key)
        let sealed = box.seal(Array("short secret".utf8))
        for index in sealed.indices {
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: SecretBoxError.self) { try box.open(tampered) }
        }
    }

    @Test func wrongKeyFails() throws {
        let sealed = try SecretBox(key: key).seal(plaintext)
        var otherKey = key
        otherKey[0] ^= 0xff
        #expect(throws: SecretBoxError.self) { try SecretBox(key: otherKey).open(sealed) }
    }

    @Test func wrongAssociatedDataFails() throws {
        let box = try SecretBox(key: key)
        let sealed = box.seal(plaintext, associatedData: Array("app-1".utf8))
        #expect(throws: SecretBoxError.self) { try box.open(sealed, associatedData: Array("app-2".utf8)) }
        #expect(throws: SecretBoxError.self) { try box.open(sealed) }
    }

    @Test func truncatedValuesFail() throws {
        let box = try SecretBox(key: key)
        let sealed = box.seal(plaintext)
        #expect(throws: SecretBoxError.self) { try box.open([]) }
        #expect(throws: SecretBoxError.self) { try box.open(Array(sealed.prefix(28))) }
        #expect(throws: SecretBoxError.self) { try box.open(Array(sealed.dropLast())) }
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func keyMustBe32Bytes(length: Int) {
        #expect(throws: SecretBoxError.self) { try SecretBox(key: [UInt8](repeating: 7, count: length)) }
    }
}

@Suite struct SecretBoxLoadTests {
    /// Seals with a box made from `key` and opens with `box`: they hold the same key.
    func expect(_ box: SecretBox, holds key: [UInt8]) throws {
        let sealed = try SecretBox(key: key).seal([1, 2, 3])
        #expect(try box.open(sealed) == [1, 2, 3])
    }

    @Test func createsA0600KeyFileAndReusesIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("keys/secret.key")
        let first = try SecretBox.load(environmentValue: nil, keyFile: path)

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(stored.count == 32)
        try expect(first, holds: stored)

        let second = try SecretBox.load(environmentValue: nil, keyFile: path)
        try expect(second, holds: stored)
        // No temporary files are left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("keys")) == ["secret.key"])
    }

    @Test func acceptsHexEnvironmentValue() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = SecureRandom.bytes(32)
        let hex = key.map { String(format: "%02X", $0) }.joined()
        let box = try SecretBox.load(environmentValue: hex + "\n", keyFile: dir.file("unused.key"))
        try expect(box, holds: key)
        // The environment wins: no file is made.
        #expect(!FileManager.default.fileExists(atPath: dir.file("unused.key")))
    }

    @Test func acceptsBase64EnvironmentValue() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = SecureRandom.bytes(32)
        let box = try SecretBox.load(environmentValue: Data(key).base64EncodedString(), keyFile: dir.file("unused.key"))
        try expect(box, holds: key)
    }

    @Test func emptyEnvironmentValueFallsBackToTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try SecretBox.load(environmentValue: "", keyFile: dir.file("secret.key"))
        #expect(FileManager.default.fileExists(atPath: dir.file("secret.key")))
    }

    @Test(arguments: [
        "not-a-key",
        String(repeating: "a", count: 63),
        String(repeating: "g", count: 64),
        String(repeating: "a", count: 66),
        Data(repeating: 1, count: 31).base64EncodedString(),
        Data(repeating: 1, count: 33).base64EncodedString(),
    ])
    func rejectsMalformedEnvironmentValue(value: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            _ = try SecretBox.load(environmentValue: value, keyFile: dir.file("secret.key"))
            Issue.record("accepted a malformed PUSHRELAY_SECRET_KEY")
        } catch let error as SecretBoxError {
            #expect(error.message.contains("PUSHRELAY_SECRET_KEY"))
            #expect(!error.message.contains(value))
        }
    }

    @Test func acceptsAKeyFileHoldingHexText() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = SecureRandom.bytes(32)
        try (Hex.encode(key) + "\n").write(toFile: dir.file("secret.key"), atomically: true, encoding: .utf8)
        try expect(try SecretBox.load(environmentValue: nil, keyFile: dir.file("secret.key")), holds: key)
    }

    @Test func rejectsAMalformedKeyFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("secret.key")
        try Data(repeating: 9, count: 10).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SecretBox.load(environmentValue: nil, keyFile: path)
            Issue.record("accepted a 10-byte key file")
        } catch let error as SecretBoxError {
            #expect(error.message.contains(path))
            #expect(error.message.contains("10 bytes"))
        }
        // The bad file is left for the operator, not silently replaced.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 10)
    }
}
