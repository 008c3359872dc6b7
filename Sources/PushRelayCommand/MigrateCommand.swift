import RelayCore

/// `pushrelay migrate`: apply pending migrations and exit.
enum MigrateCommand {
    static func run(arguments: [String]) async -> Int32 {
        guard arguments.isEmpty else { return PushRelay.fail("migrate takes no arguments, got \(arguments.joined(separator: " "))") }
        do {
            let environment = try await RelayEnvironment.start(component: "migrate")
            do {
                let applied = try await environment.migrate()
                print(applied.isEmpty ? "database is up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
                await environment.stop()
                return 0
            } catch {
                await environment.stop()
                return PushRelay.fail("migration failed: \(error)")
            }
        } catch {
            return PushRelay.fail("\(error)")
        }
    }
}
