import Foundation

/// Scripts that drive the official JPush Python SDK (`pip install jpush`; `make deps`
/// installs it) against a relay a test started.
public enum JPushPythonSDK {
    /// What every script starts with: the SDK imported, `relay_zone(port)` pointing its
    /// "PUSHRELAY" zone at 127.0.0.1:`port` (it returns the v3 base URL), and `check`,
    /// which ends the script with "FAILED: …" unless a condition holds.
    public static let prelude = #"""
import sys
import jpush
from jpush import common

def relay_zone(port):
    base = "http://127.0.0.1:%s/v3/" % port
    common.ZONES["PUSHRELAY"] = {
        "PUSH": base, "REPORT": base, "DEVICE": base + "devices/", "ALIAS": base + "aliases/",
        "TAG": base + "tags/", "SCHEDULE": base + "schedules/", "ADMIN": base,
    }
    return base

def check(condition, what):
    if not condition:
        raise SystemExit("FAILED: " + what)

"""#

    /// Runs the prelude and `script` with python3 and `arguments`.
    ///
    /// - Returns: its exit status, and its standard output and standard error interleaved.
    public static func run(_ script: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptURL = directory.appendingPathComponent("script.py")
        try (prelude + script).write(to: scriptURL, atomically: true, encoding: .utf8)
        return try await TestProcess.outcome("/usr/bin/env", ["python3", scriptURL.path] + arguments)
    }
}
