import NookActivities

/// A structured error sent back for a bad request (C3): a stable code, the field at fault
/// (dotted path such as `activity.title`) and a human message.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case badJSON, lineTooLong, unsupportedVersion, unknownOperation, missingField, wrongType
        case invalid, unknownModule, notFound, queueFull, forbidden, unavailable, internalError
    }

    public var code: Code
    public var field: String?
    public var message: String

    public init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String {
        if let field { return "\(code.rawValue): \(field): \(message)" }
        return "\(code.rawValue): \(message)"
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("code", .string(code.rawValue))]
        if let field { members.append(("field", .string(field))) }
        members.append(("message", .string(message)))
        return .object(members)
    }

    public init?(json: JSONValue) {
        guard case .string(let code)? = json["code"], let known = Code(rawValue: code),
              case .string(let message)? = json["message"] else { return nil }
        var field: String?
        if case .string(let name)? = json["field"] { field = name }
        self.init(known, field: field, message)
    }
}

/// Reads typed fields out of a JSON object, naming the field path in every error.
struct FieldReader {
    let object: [(String, JSONValue)]
    let path: String

    init(_ value: JSONValue, path: String) throws(ProtocolError) {
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, field: path.isEmpty ? nil : path, "must be a JSON object, got \(value.typeName)")
        }
        object = members
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func value(_ key: String) -> JSONValue? {
        guard let found = object.first(where: { $0.0 == key })?.1, found != .null else { return nil }
        return found
    }

    func string(_ key: String) throws(ProtocolError) -> String? {
        switch value(key) {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw ProtocolError(.wrongType, field: name(key), "must be a string, got \(other.typeName)")
        }
    }

    func requiredString(_ key: String) throws(ProtocolError) -> String {
        guard let text = try string(key) else { throw ProtocolError(.missingField, field: name(key), "is required") }
        return text
    }

    /// A string from a closed set (a `String`-backed enum): absent, or one of its cases.
    func oneOf<Value: RawRepresentable & CaseIterable>(_ key: String, _: Value.Type) throws(ProtocolError) -> Value? where Value.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = Value(rawValue: text) else {
            throw ProtocolError(.invalid, field: name(key), "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")); got '\(text)'")
        }
        return value
    }

    /// The same for a value a client only shows: a word a newer nookd added reads as absent, so an
    /// older client still reads the rest of the answer.
    func oneOfIfKnown<Value: RawRepresentable & CaseIterable>(_ key: String, _: Value.Type) throws(ProtocolError) -> Value? where Value.RawValue == String {
        try string(key).flatMap { Value(rawValue: $0) }
    }

    func requiredOneOf<Value: RawRepresentable & CaseIterable>(_ key: String, _ type: Value.Type) throws(ProtocolError) -> Value where Value.RawValue == String {
        guard let value = try oneOf(key, type) else { throw ProtocolError(.missingField, field: name(key), "is required") }
        return value
    }

    func number(_ key: String) throws(ProtocolError) -> Double? {
        switch value(key) {
        case nil: return nil
        case .number(let number)?: return number
        case let other?: throw ProtocolError(.wrongType, field: name(key), "must be a number, got \(other.typeName)")
        }
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool? {
        switch value(key) {
        case nil: return nil
        case .bool(let flag)?: return flag
        case let other?: throw ProtocolError(.wrongType, field: name(key), "must be true or false, got \(other.typeName)")
        }
    }

    /// Rejects keys this message does not define: a typo must not be silently ignored.
    /// `extra` names the fields of one kind of message beside the `known` set they share; it is
    /// looked through first, by comparing, which a handful of short names makes cheaper than
    /// hashing (this runs for every request).
    func rejectUnknown(_ known: Set<String>, also extra: [String] = []) throws(ProtocolError) {
        for (key, _) in object where !extra.contains(key) && !known.contains(key) {
            throw ProtocolError(.invalid, field: name(key), "is not a field of this message (known: \(known.union(extra).sorted().joined(separator: ", ")))")
        }
    }

    func requiredNumber(_ key: String) throws(ProtocolError) -> Double {
        guard let number = try number(key) else { throw ProtocolError(.missingField, field: name(key), "is required") }
        return number
    }

    func requiredInt(_ key: String) throws(ProtocolError) -> Int {
        let number = try requiredNumber(key)
        guard let whole = Int(exactly: number) else { throw ProtocolError(.wrongType, field: name(key), "must be a whole number, got \(number)") }
        // Beyond 2^53 a JSON number is no longer exact, and arithmetic on it can overflow.
        // Its magnitude, not abs: -2^63 is a whole Double that fits in an Int, and abs traps on it.
        guard whole.magnitude <= 1 << 53 else { throw ProtocolError(.invalid, field: name(key), "must be at most 2^53 in size, got \(number)") }
        return whole
    }

    /// A whole number that counts something: from 0.
    func requiredCount(_ key: String) throws(ProtocolError) -> Int {
        let count = try requiredInt(key)
        guard count >= 0 else { throw ProtocolError(.invalid, field: name(key), "must be 0 or more, got \(count)") }
        return count
    }

    /// A count, or nil if absent.
    func count(_ key: String) throws(ProtocolError) -> Int? {
        guard try number(key) != nil else { return nil }
        return try requiredCount(key)
    }

    /// A number within `range`, or nil if absent: every number read from a peer or a file is
    /// checked before it is converted or used in arithmetic that traps (a time of 1e308 once
    /// crashed nookctl's date formatting).
    func number(_ key: String, in range: ClosedRange<Double>) throws(ProtocolError) -> Double? {
        guard let number = try number(key) else { return nil }
        guard range.contains(number) else {
            throw ProtocolError(.invalid, field: name(key), "must be from \(FieldReader.text(range.lowerBound)) to \(FieldReader.text(range.upperBound)), got \(number)")
        }
        return number
    }

    func requiredNumber(_ key: String, in range: ClosedRange<Double>) throws(ProtocolError) -> Double {
        guard let number = try number(key, in: range) else { throw ProtocolError(.missingField, field: name(key), "is required") }
        return number
    }

    /// Wall-clock seconds (Unix time) up to the end of the year 9999.
    static let wallClock: ClosedRange<Double> = 0...253_402_300_799

    static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    func requiredBool(_ key: String) throws(ProtocolError) -> Bool {
        guard let flag = try bool(key) else { throw ProtocolError(.missingField, field: name(key), "is required") }
        return flag
    }

    func requiredID(_ key: String) throws(ProtocolError) -> NookActivityID {
        let text = try requiredString(key)
        guard let id = NookActivityID(text) else { throw ProtocolError(.invalid, field: name(key), "must be a UUID (8-4-4-4-12 hexadecimal digits), got '\(text)'") }
        return id
    }

    /// A nested object as a reader of its own (its errors name `key.field`), or nil if absent.
    func object(_ key: String) throws(ProtocolError) -> FieldReader? {
        guard let found = value(key) else { return nil }
        return try FieldReader(found, path: name(key))
    }

    func requiredObject(_ key: String) throws(ProtocolError) -> FieldReader {
        guard let found = try object(key) else { throw ProtocolError(.missingField, field: name(key), "is required") }
        return found
    }

    func requiredArray(_ key: String) throws(ProtocolError) -> [JSONValue] {
        switch value(key) {
        case nil: throw ProtocolError(.missingField, field: name(key), "is required")
        case .array(let items)?: return items
        case let other?: throw ProtocolError(.wrongType, field: name(key), "must be an array, got \(other.typeName)")
        }
    }

    /// An array of objects, each as a reader naming `key[index].field` in its errors.
    func requiredObjects(_ key: String) throws(ProtocolError) -> [FieldReader] {
        try requiredArray(key).enumerated().map { (index, item) throws(ProtocolError) in try FieldReader(item, path: name("\(key)[\(index)]")) }
    }
}

