import Foundation

// Usage: EmbedMigrationsTool OUTPUT.swift NNNN_name.sql...
// Writes `EmbeddedMigrations.all`: one `Migration` per file, in file-name order.
let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: EmbedMigrationsTool OUTPUT FILE...\n".utf8))
    exit(2)
}
var source = "// Generated from migrations/*.sql by the EmbedMigrations plugin. Do not edit.\n"
source += "public enum EmbeddedMigrations {\n    public static let all: [Migration] = [\n"
for path in arguments.dropFirst().sorted() {
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    guard let version = Int(name.prefix { $0.isNumber }) else {
        FileHandle.standardError.write(Data("migration \(name) does not start with a number\n".utf8))
        exit(1)
    }
    let sql = try String(contentsOfFile: path, encoding: .utf8)
    // A raw string with enough #s that no SQL text can end it early.
    var hashes = "#"
    while sql.contains("\"" + hashes) { hashes += "#" }
    source += "        Migration(version: \(version), name: \(String(reflecting: name)), sql: \(hashes)\"\"\"\n\(sql)\n\"\"\"\(hashes)),\n"
}
source += "    ]\n}\n"
try source.write(toFile: output, atomically: true, encoding: .utf8)
