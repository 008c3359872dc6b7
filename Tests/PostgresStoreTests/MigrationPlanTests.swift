import Testing
@testable import PostgresStore

@Suite("MigrationPlan and installation lookup")
struct MigrationPlanTests {
    let migrations = [
        Migration(version: 3, name: "0003_c", sql: ""),
        Migration(version: 1, name: "0001_a", sql: ""),
        Migration(version: 2, name: "0002_b", sql: ""),
    ]

    @Test("pending migrations come in version order, skipping applied ones")
    func pendingInOrder() throws {
        #expect(try MigrationPlan(migrations: migrations, applied: []).pending.map(\.version) == [1, 2, 3])
        #expect(try MigrationPlan(migrations: migrations, applied: [1, 3]).pending.map(\.version) == [2])
        #expect(try MigrationPlan(migrations: migrations, applied: [1, 2, 3, 4]).pending.isEmpty)
    }

    @Test("two migrations with one version are refused")
    func duplicates() {
        #expect(throws: PostgresError.self) {
            try MigrationPlan(migrations: migrations + [Migration(version: 2, name: "0002_x", sql: "")], applied: [])
        }
    }

    @Test("server programs are looked for in the override, Debian's newest version, then PATH")
    func installationCandidates() {
        let candidates = PostgresInstallation.candidates(
            environment: ["PUSHRELAY_POSTGRES_BIN": "/opt/pg/bin", "PATH": "/usr/bin:/bin"],
            debianVersions: ["9", "15", "common", "13"])
        #expect(candidates == [
            "/opt/pg/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/13/bin",
            "/usr/lib/postgresql/9/bin", "/usr/bin", "/bin", "/usr/local/pgsql/bin",
        ])
    }

    @Test("postmaster.pid's first line is the PID")
    func pidFile() {
        #expect(PostmasterPID.pid(fromPidFile: "4242\n/data\n1700000000\n5432\n") == 4242)
        #expect(PostmasterPID.pid(fromPidFile: "") == nil)
        #expect(PostmasterPID.pid(fromPidFile: "garbage\n") == nil)
    }
}
