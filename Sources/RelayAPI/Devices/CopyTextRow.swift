/// Appends rows in `COPY … FROM STDIN` text format: tab-separated, `\N` for NULL, with
/// backslash, tab, newline and carriage return escaped inside values.
struct CopyTextRow {
    private(set) var bytes: [UInt8] = []
    private var fieldsInRow = 0

    mutating func field(_ value: String?) {
        if fieldsInRow > 0 { bytes.append(0x09) }
        fieldsInRow += 1
        guard let value else {
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default: bytes.append(byte)
            }
        }
    }

    mutating func endRow() {
        bytes.append(0x0A)
        fieldsInRow = 0
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        fieldsInRow = 0
    }
}
