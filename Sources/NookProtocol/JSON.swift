/// A JSON value, parsed from bytes by ``JSONValue/parse(_:)`` with errors that say where and
/// what, and written back with ``serialized``. Objects keep their key order.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized)
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The string, if this is one.
    public var text: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is one.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The elements, if this is an array; empty otherwise.
    public var items: [JSONValue] { if case .array(let values) = self { values } else { [] } }

    /// What kind of value this is, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    // MARK: Writing

    public var serialized: String {
        String(decoding: serializedBytes, as: UTF8.self)
    }

    /// The UTF-8 of ``serialized``. Written as bytes: every answer, event and journal record
    /// is serialized, and appending bytes costs a fraction of appending to a `String`.
    public var serializedBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 {
                Self.writeWhole(Int64(number), to: &output)
            } else {
                output.append(contentsOf: "\(number)".utf8)
            }
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Digits straight into the output: sequence numbers, counts and ids are most of the
    /// numbers written, and a `String` for each cost an allocation.
    private static func writeWhole(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int64's 19 digits fit
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: buffer[index...])
        }
    }

    /// Escapes byte by byte: no byte of a multi-byte UTF-8 sequence is below 0x80, so only
    /// ASCII bytes ever need an escape.
    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (ids, names, titles) need no escape: copy them whole. Scanned through
        // the string's own storage: the generic scan of its UTF-8 view cost more than copying.
        // Indexed through the base pointer, which a debug build runs inline (see `Parser`).
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            if let base = bytes.baseAddress {
                var index = 0
                while index < bytes.count {
                    let byte = base[index]
                    if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
                    index += 1
                }
            }
            output.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    // MARK: Parsing

    /// Deepest nesting accepted: requests are two or three levels deep.
    public static let maximumDepth = 32

    /// Parses strictly: a key twice in one object is an error (the native API's rule).
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        try parse(bytes, lastOfDuplicates: false).value
    }

    /// Parses as ArduinoJson does (what an AWTRIX sender was written against): a key given twice
    /// in one object keeps its first place and takes its last value. `duplicates` names each
    /// such key once, so the answer can say which value was used.
    public static func parseKeepingLast(_ bytes: some Collection<UInt8>) throws(JSONError) -> (value: JSONValue, duplicates: [String]) {
        let parsed = try parse(bytes, lastOfDuplicates: true)
        return (parsed.value, parsed.duplicates)
    }

    /// As ``parseKeepingLast(_:)``, and for a top-level array the keys given twice within each
    /// element, each once per element, so that each of several apps is told of its own.
    static func parseKeepingLastByElement(_ bytes: some Collection<UInt8>) throws(JSONError) -> Parsed {
        try parse(bytes, lastOfDuplicates: true)
    }

    /// A value read, the keys given twice in it, and those of each element of a top-level array.
    struct Parsed {
        var value: JSONValue
        var duplicates: [String]
        var elementDuplicates: [(element: Int, key: String)]
    }

    private static func parse(_ bytes: some Collection<UInt8>, lastOfDuplicates: Bool) throws(JSONError) -> Parsed {
        let read = { (buffer: UnsafeBufferPointer<UInt8>) in parse(buffer: buffer, lastOfDuplicates: lastOfDuplicates) }
        let parsed = bytes.withContiguousStorageIfAvailable(read) ?? Array(bytes).withUnsafeBufferPointer(read)
        return try parsed.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, lastOfDuplicates: Bool) -> Result<Parsed, JSONError> {
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            return .failure(JSONError(offset: 0, message: "the line ends where a value should be"))
        }
        var parser = Parser(base: base, count: buffer.count, lastOfDuplicates: lastOfDuplicates)
        return Result { () throws(JSONError) in
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.atEnd else { throw parser.error("unexpected text after the JSON value") }
            return Parsed(value: value, duplicates: parser.duplicates, elementDuplicates: parser.elementDuplicates)
        }
    }
}

/// Why a line is not JSON: the byte offset and what was wrong.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "at byte \(offset): \(message)" }
}

/// Reads through a pointer, not an array: a debug build (every test's nookd and nook-http) runs
/// an array's subscript as a generic call with a retain and a release per byte, a pointer's inline.
private struct Parser {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// The element of a top-level array being read, if the value is one, and the keys given
    /// twice within each element (a set beside the list: a body of thousands costs no more).
    var element: Int?
    var elementDuplicates: [(element: Int, key: String)] = []
    var elementDuplicated: Set<ElementKey> = []
    struct ElementKey: Hashable { let element: Int, key: String }
    /// A key twice in one object takes the last value instead of being an error.
    var lastOfDuplicates = false
    var duplicates: [String] = []
    /// ``duplicates`` as a set, for its look-ups.
    var duplicated: Set<String> = []
    var position = 0

    init(base: UnsafePointer<UInt8>, count: Int, lastOfDuplicates: Bool) {
        (self.base, self.count, self.lastOfDuplicates) = (base, count, lastOfDuplicates)
    }

    var atEnd: Bool { position >= count }
    var peek: UInt8? { position < count ? base[position] : nil }

    /// The bytes of `range`, which lies inside the input.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + range.lowerBound, count: range.count) }

    func error(_ message: String) -> JSONError { JSONError(offset: position, message: message) }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard depth < JSONValue.maximumDepth else { throw error("nested deeper than \(JSONValue.maximumDepth) levels") }
        switch peek {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            return .number(try parseNumber())
        case nil: throw error("the line ends where a value should be")
        case let byte?: throw error(byte == 0 ? "NUL byte where a value should be" : "unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard count - position >= expected.count, bytes(position..<position + expected.count).elementsEqual(expected) else {
            throw error("expected '\(word)'")
        }
        position += expected.count
    }

    mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        position += 1
        var members: [(String, JSONValue)] = []
        // Past a few members, the keys by index: a body of 8,000 keys took seconds of a bridge's
        // one thread looked up member by member (quadratic), holding every other client.
        var index: [String: Int]?
        skipWhitespace()
        if peek == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
            let key = try parseString()
            let earlier = index != nil ? index?[key] : members.firstIndex { $0.0 == key }
            if earlier != nil, !lastOfDuplicates { throw error("key '\(key)' appears twice") }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected ':' after key '\(key)'") }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            if earlier != nil, let element, elementDuplicated.insert(ElementKey(element: element, key: key)).inserted { elementDuplicates.append((element, key)) }
            if let earlier {
                members[earlier].1 = value
                if duplicated.insert(key).inserted { duplicates.append(key) }
            } else {
                members.append((key, value))
                if index != nil {
                    index?[key] = members.count - 1
                } else if members.count > Self.membersScanned {
                    index = Dictionary(members.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { first, _ in first })
                }
            }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw error("expected ',' or '}' in the object")
            }
        }
    }

    /// Members an object's keys are compared with one by one before they are indexed: most
    /// objects (a card, an app) have fewer, and a dictionary would cost them more.
    static let membersScanned = 16

    mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        position += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") { position += 1; return .array(values) }
        while true {
            skipWhitespace()
            if depth == 0 { element = values.count }
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(values)
            default: throw error("expected ',' or ']' in the array")
            }
        }
    }

    mutating func parseString() throws(JSONError) -> String {
        position += 1
        // UTF-8 of the string so far; runs between escapes are checked as they are copied, so
        // an error names the run's offset. A string with no escape is one run, checked once.
        var text: [UInt8] = []
        let start = position
        var runStart = position
        // Whether the run so far has a byte past ASCII: only such a run needs UTF-8 validation.
        var runHasNonASCII = false
        func flushRun(_ parser: Parser, into text: inout [UInt8]) throws(JSONError) {
            guard runStart < parser.position else { return }
            let run = parser.bytes(runStart..<parser.position)
            guard !runHasNonASCII || String(validating: run, as: UTF8.self) != nil else {
                throw JSONError(offset: runStart, message: "invalid UTF-8 in a string")
            }
            text.append(contentsOf: run)
        }
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""):
                if text.isEmpty, runStart == start {
                    // No escape: the string is its one run, made straight from the bytes.
                    let run = bytes(runStart..<position)
                    // Validated once: the string made while checking is the one returned.
                    let string = runHasNonASCII ? String(validating: run, as: UTF8.self) : String(decoding: run, as: UTF8.self)
                    guard let string else { throw JSONError(offset: runStart, message: "invalid UTF-8 in a string") }
                    position += 1
                    return string
                }
                try flushRun(self, into: &text)
                position += 1
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try flushRun(self, into: &text)
                position += 1
                text.append(contentsOf: String(try parseEscape()).utf8)
                runStart = position
                runHasNonASCII = false
            case 0:
                throw error("NUL byte inside a string")
            case ..<0x20:
                throw error("control character inside a string (escape it)")
            default:
                if byte >= 0x80 { runHasNonASCII = true }
                position += 1
            }
        }
        throw error("the string is not closed")
    }

    mutating func parseEscape() throws(JSONError) -> Unicode.Scalar {
        guard let byte = peek else { throw error("the line ends inside an escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hex4()
            if (0xD800..<0xDC00).contains(first) {
                guard peek == UInt8(ascii: "\\"), position + 1 < count, base[position + 1] == UInt8(ascii: "u") else {
                    throw error("a high surrogate must be followed by a low one")
                }
                position += 2
                let second = try hex4()
                guard (0xDC00..<0xE000).contains(second) else { throw error("invalid low surrogate") }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("lone surrogate \\u\(String(first, radix: 16))") }
            guard first != 0 else { throw error("\\u0000 (NUL) is not allowed") }
            return scalar
        default:
            throw error("unknown escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        // Four hexadecimal digits exactly: `UInt32(_:radix:)` alone would take a sign ("+0e9").
        guard count - position >= 4, bytes(position..<position + 4).allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                  || (($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "f")) }),
              let text = String(validating: bytes(position..<position + 4), as: UTF8.self),
              let value = UInt32(text, radix: 16) else { throw error("\\u needs four hexadecimal digits") }
        position += 4
        return value
    }

    mutating func parseNumber() throws(JSONError) -> Double {
        let start = position
        if peek == UInt8(ascii: "-") { position += 1 }
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
            position += 1
        }
        // Most numbers are whole (ids, counts, versions): up to 15 digits a Double holds them
        // exactly, and summing digits costs a fraction of making a String for `Double(_:)`.
        let negative = base[start] == UInt8(ascii: "-")
        let digitsStart = negative ? start + 1 : start
        if position > digitsStart, position - digitsStart <= 15,
           bytes(digitsStart..<position).allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
           base[digitsStart] != UInt8(ascii: "0") || position - digitsStart == 1 {
            var whole: Int64 = 0
            for byte in bytes(digitsStart..<position) { whole = whole * 10 + Int64(byte - UInt8(ascii: "0")) }
            return negative ? -Double(whole) : Double(whole)
        }
        // Only ASCII bytes were taken above: no UTF-8 to validate. `Double(_:)` alone would take
        // more than JSON's numbers ("01", "1.", "1e5.").
        guard isNumber(start..<position), let number = Double(String(decoding: bytes(start..<position), as: UTF8.self)),
              number.isFinite else {
            throw JSONError(offset: start, message: "malformed number")
        }
        return number
    }

    /// Whether `range` is a number as JSON writes it (RFC 8259, section 6):
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    func isNumber(_ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        func isDigit(_ at: Int) -> Bool { at < range.upperBound && base[at] >= UInt8(ascii: "0") && base[at] <= UInt8(ascii: "9") }
        func digits() -> Bool {
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
            return true
        }
        if index < range.upperBound, base[index] == UInt8(ascii: "-") { index += 1 }
        if index < range.upperBound, base[index] == UInt8(ascii: "0") { index += 1 } else if !digits() { return false }
        if index < range.upperBound, base[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return false }
        }
        if index < range.upperBound, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
            index += 1
            if index < range.upperBound, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return false }
        }
        return index == range.upperBound
    }
}
