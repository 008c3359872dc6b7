import Foundation

/// Finds the PostgreSQL server programs (`initdb`, `pg_ctl`) on this machine.
enum PostgresInstallation {
    /// Environment variable naming the directory of `initdb` and `pg_ctl`, overriding the search.
    static let binEnvironmentKey = "PUSHRELAY_POSTGRES_BIN"

    /// Directories to look in, best first: the override, Debian's versioned directories
    /// (newest first), then `PATH`.
    static func candidates(environment: [String: String], debianVersions: [String]) -> [String] {
        var directories: [String] = []
        if let override = environment[binEnvironmentKey], !override.isEmpty { directories.append(override) }
        let versions = debianVersions.compactMap { Int($0) }.sorted(by: >)
        directories += versions.map { "/usr/lib/postgresql/\($0)/bin" }
        directories += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        directories.append("/usr/local/pgsql/bin")
        return directories
    }

    /// The first candidate directory holding executable `initdb` and `pg_ctl`.
    ///
    /// - Throws: `PostgresError.unavailable` naming where it looked.
    static func binDirectory() throws -> String {
        let files = FileManager.default
        let versions = (try? files.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let directories = candidates(environment: ProcessInfo.processInfo.environment, debianVersions: versions)
        for directory in directories
        where files.isExecutableFile(atPath: directory + "/initdb") && files.isExecutableFile(atPath: directory + "/pg_ctl") {
            return directory
        }
        throw PostgresError.unavailable(
            "PostgreSQL server programs (initdb, pg_ctl) not found; install the Debian `postgresql` package, "
                + "set \(binEnvironmentKey), or set PUSHRELAY_DATABASE_URL (looked in: \(directories.joined(separator: ", ")))")
    }
}
