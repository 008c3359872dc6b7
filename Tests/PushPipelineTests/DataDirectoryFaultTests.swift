import Foundation
import Testing
import TestSupport

extension FaultTests {
    /// How the data directory is broken: on a tiny tmpfs filled to the last byte, or on a
    /// tmpfs mounted read-only.
    enum DiskFault: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case full = "disk full"
        case readOnly = "read-only data directory"

        var testDescription: String { rawValue }
    }

    /// `pushrelay serve` whose data directory cannot be written exits non-zero at start,
    /// with one line naming the directory and the cause. Needs root (it mounts a tmpfs).
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"), arguments: DiskFault.allCases)
    func unwritableDataDirectoryAtStartFailsClearly(_ fault: DiskFault) async throws {
        let started = ContinuousClock.now
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-disk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: mountPoint) }
        try TestProcess.runBlocking("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", mountPoint])
        defer { _ = try? TestProcess.runBlocking("/bin/umount", [mountPoint]) }
        let dataDirectory = mountPoint + "/data"
        switch fault {
        case .full:
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            // dd stops (and fails) at ENOSPC: the filesystem is then full.
            _ = try? TestProcess.runBlocking("/bin/dd", ["if=/dev/zero", "of=\(mountPoint)/filler", "bs=4096"])
        case .readOnly:
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            try TestProcess.runBlocking("/bin/mount", ["-o", "remount,ro", mountPoint])
        }

        var environment = ProcessInfo.processInfo.environment
        environment["PUSHRELAY_DATABASE_URL"] = try await TestDatabase.fresh()
        environment["PUSHRELAY_DATA_DIR"] = dataDirectory
        environment["PUSHRELAY_LISTEN"] = "127.0.0.1:\(try TestProcess.freePort())"
        environment["PUSHRELAY_SECRET_KEY"] = nil
        environment["PUSHRELAY_ADMIN_TOKEN"] = nil
        let process = Process()
        process.executableURL = try TestProcess.binary()
        process.arguments = ["serve"]
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus != 0)
        let last = stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("pushrelay: ") && last.contains(dataDirectory), "\(stderr)")
        let cause = fault == .full ? "No space left on device" : "not writable"
        #expect(last.contains(cause), "\(last)")
        FaultReport.record("\(fault.rawValue) at start", sent: 0, delivered: 0, duplicates: 0, collapsed: 0,
                           elapsed: ContinuousClock.now - started,
                           notes: "exit \(process.terminationStatus): \(last.replacingOccurrences(of: mountPoint, with: "<tmpfs>"))")
    }
}
