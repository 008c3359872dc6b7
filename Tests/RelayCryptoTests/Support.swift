import CSystem
import Foundation

/// A fresh directory under the system temp dir, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "relaycrypto-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

struct CommandFailed: Error, CustomStringConvertible {
    var description: String
}

/// Runs the `openssl` command line in `directory` (stdin closed, so it can never prompt).
@discardableResult
func openssl(_ arguments: [String], in directory: TemporaryDirectory) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
    process.standardInput = FileHandle.nullDevice
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CommandFailed(description: "openssl \(arguments.joined(separator: " ")) failed: "
            + String(decoding: err, as: UTF8.self))
    }
    return String(decoding: out, as: UTF8.self)
}

/// Key and certificate files made with the `openssl` command line.
enum Fixtures {
    /// A P-256 key in the traditional `BEGIN EC PRIVATE KEY` form.
    static func p256Key(_ dir: TemporaryDirectory, name: String = "p256.pem") throws -> String {
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name], in: dir)
        return try dir.read(name)
    }

    /// A self-signed certificate for the key in `keyFile`, valid from now for `days`.
    static func selfSigned(_ dir: TemporaryDirectory, keyFile: String, subject: String = "/CN=PushRelay Test",
                           days: Int = 30, name: String = "cert.pem") throws -> String {
        try openssl(["req", "-x509", "-new", "-key", keyFile, "-subj", subject, "-days", "\(days)",
                     "-out", name], in: dir)
        return try dir.read(name)
    }
}

/// A self-signed certificate with a validity period of our choosing, made with OpenSSL's
/// API because the 3.0 command line cannot backdate `notAfter`.
///
/// - Parameters:
///   - notBefore, notAfter: `YYYYMMDDHHMMSSZ`.
func certificate(forKeyPEM keyPEM: String, notBefore: String, notAfter: String) throws -> String {
    let bytes = Array(keyPEM.utf8)
    let keyPointer = bytes.withUnsafeBytes { raw -> OpaquePointer? in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio) }
        return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
    }
    guard let key = keyPointer else { throw CommandFailed(description: "test key does not parse") }
    defer { EVP_PKEY_free(key) }
    guard let cert = X509_new() else { throw CommandFailed(description: "X509_new failed") }
    defer { X509_free(cert) }
    let name = X509_get_subject_name(cert)
    guard X509_set_version(cert, 2) == 1,
          ASN1_INTEGER_set(X509_get_serialNumber(cert), 7) == 1,
          ASN1_TIME_set_string(X509_getm_notBefore(cert), notBefore) == 1,
          ASN1_TIME_set_string(X509_getm_notAfter(cert), notAfter) == 1,
          X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "PushRelay Dated Test", -1, -1, 0) == 1,
          X509_set_issuer_name(cert, name) == 1,
          X509_set_pubkey(cert, key) == 1,
          X509_sign(cert, key, EVP_sha256()) > 0,
          let out = BIO_new(BIO_s_mem()) else {
        throw CommandFailed(description: "building the test certificate failed")
    }
    defer { BIO_free(out) }
    guard PEM_write_bio_X509(out, cert) == 1 else { throw CommandFailed(description: "PEM_write_bio_X509 failed") }
    var data: UnsafeMutablePointer<CChar>?
    let length = CSystem_BIO_get_mem_data(out, &data)
    guard let data, length > 0 else { throw CommandFailed(description: "empty PEM") }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
}

/// True when this thread's OpenSSL error queue is empty.
func openSSLErrorQueueIsEmpty() -> Bool {
    ERR_peek_error() == 0
}
