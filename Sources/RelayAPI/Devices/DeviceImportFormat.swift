import RelayCore
import RelayStore

/// The two bodies `POST /v3/devices/import` takes, and how one line of each becomes a
/// registration (the same validation as `POST /v3/devices`).
enum DeviceImportFormat: Sendable, Equatable {
    /// `application/x-ndjson`: one `POST /v3/devices` body per line.
    case ndjson
    /// `text/csv`: `platform,token,environment,alias,tags`, tags separated by spaces (a
    /// character no tag may contain); an empty alias or tags field leaves the device's value
    /// as it is, and an Android line leaves environment empty. Lines without the platform
    /// column (`token,environment,alias,tags`, the first layout) are iOS tokens: a line whose
    /// first field is a platform name has the column, as no token is `ios` or `android`.
    /// A first line naming the columns is skipped.
    case csv

    static let csvHeader = "platform,token,environment,alias,tags"
    /// The header lines skipped: the layout with the platform column and the one without.
    static let csvHeaders: Set<String> = [csvHeader, "token,environment,alias,tags"]

    /// - Parameters:
    ///   - contentType: the request's `Content-Type`, parameters (`; charset=utf-8`) allowed.
    init?(contentType: String?) {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        switch mediaType {
        case "application/x-ndjson", "application/jsonl", "application/jsonlines": self = .ndjson
        case "text/csv": self = .csv
        default: return nil
        }
    }

    /// The registration on one line (without its line break), or why it is refused.
    func parse(_ line: ArraySlice<UInt8>) -> Result<DeviceRegistration, DeviceFieldError> {
        switch self {
        case .ndjson:
            do {
                let value = try JSONValue.parse(line)
                return .success(try DeviceRegistration(try JSONObjectReader(value, path: "")))
            } catch let error as DeviceFieldError {
                return .failure(error)
            } catch let error as JPushError {
                return .failure(DeviceFieldError(error.message))
            } catch {
                return .failure(DeviceFieldError("\(error)"))
            }
        case .csv:
            do {
                return .success(try Self.csvRow(line))
            } catch {
                return .failure(error)
            }
        }
    }

    private static func csvRow(_ line: ArraySlice<UInt8>) throws(DeviceFieldError) -> DeviceRegistration {
        guard var fields = CSVLine.fields(line) else { throw DeviceFieldError("unbalanced quotes") }
        var platform = DevicePlatform.ios
        if let named = DevicePlatform(rawValue: fields[0]) {
            platform = named
            fields.removeFirst()
        }
        guard (platform == .android ? 1...4 : 2...4).contains(fields.count) else {
            throw DeviceFieldError("expected the columns \(csvHeader) (3 to 5 fields), got \(fields.count + 1)")
        }
        let token = try DeviceToken(parsing: fields[0], platform: platform)
        let environment = try DeviceRegistration.environment(platform, given: fields.count > 1 && !fields[1].isEmpty ? fields[1] : nil)
        var alias: String?
        if fields.count > 2, !fields[2].isEmpty {
            try DeviceLabel.validate(fields[2], kind: "alias")
            alias = fields[2]
        }
        var tags: [String]?
        if fields.count > 3, !fields[3].isEmpty {
            let list = fields[3].split(separator: " ").map(String.init).map(JSONValue.string)
            tags = try DeviceRegistration.tagList(.array(list), field: "tags", limit: DeviceRegistration.maxTagsPerDevice)
        }
        return DeviceRegistration(platform: platform, token: token, environment: environment, alias: alias, tags: tags)
    }
}

/// Splits one CSV line (RFC 4180: fields may be quoted, `""` is a quote inside quotes).
enum CSVLine {
    /// nil when a quoted field is not closed.
    static func fields(_ line: ArraySlice<UInt8>) -> [String]? {
        var fields: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < line.endIndex, line[index + 1] == UInt8(ascii: "\"") {
                        current.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                fields.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
            index += 1
        }
        guard !quoted else { return nil }
        fields.append(String(decoding: current, as: UTF8.self))
        return fields
    }
}
