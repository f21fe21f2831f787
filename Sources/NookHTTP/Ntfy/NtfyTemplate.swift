import NookProtocol

/// ntfy's message templates (`X-Template: yes`, `?tpl=1`, `?template=yes`): the message and
/// title hold Go template actions filled in from the JSON body, which is how a webhook's JSON
/// becomes readable text. The part ntfy's documentation shows for webhooks is rendered as Go's
/// `text/template` prints it: field lookups such as `{{.alert.title}}`, with `{{-` and `-}}`
/// trimming the whitespace beside them. Anything richer (`range`, `if`, pipelines, functions,
/// variables) is refused naming the action, so a card never shows a template half filled in.
enum NtfyTemplate {
    static let parameterNames = ["x-template", "template", "tpl"]

    /// Whether the request asks for a template: ntfy's yes (`1`, `yes`, `true`, any case). A value
    /// that is neither yes nor no names one of the templates newer ntfy servers keep on disk
    /// (`github`, `grafana`), which a board has none of: refused rather than shown as raw text.
    static func requested(_ request: HTTPRequest) throws(HTTPAPIError) -> Bool {
        guard let given = NtfyMessage.parameter(request, parameterNames) else { return false }
        switch given.trimmingCharacters().lowercased() {
        case "", "0", "no", "false": return false
        case "1", "yes", "true": return true
        default:
            throw HTTPAPIError(status: 400, code: "unsupported", field: "template",
                               message: "ntfy's named templates ('\(PublishText.quoted(given))') are not offered: send X-Template: yes with the message and title written as templates, such as {{.alert.title}}")
        }
    }

    /// The body a template is filled in from: JSON, as ntfy requires.
    static func data(_ body: [UInt8]) throws(HTTPAPIError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw HTTPAPIError(status: 400, code: "invalid_body", field: "body",
                               message: "with a template (X-Template, ?tpl=) the body must be the JSON its {{.fields}} are filled in from: \(error)")
        }
    }

    /// The most a template may fill in, in bytes: what nook-http takes as a message body by
    /// default. A few hundred lookups of one long field would otherwise fill hundreds of MB from
    /// a body and header inside their limits.
    static let longestOutput = 64 * 1024

    /// `template` filled in from `data`. `field`: the sender's field that held the template
    /// (`message` or `title`), named in a refusal.
    static func render(_ template: String, data: JSONValue, field: String) throws(HTTPAPIError) -> String {
        var output = ""
        var bytes = 0
        func append(_ piece: some StringProtocol) throws(HTTPAPIError) {
            bytes += piece.utf8.count
            guard bytes <= longestOutput else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: field,
                                   message: "the template filled in is longer than \(longestOutput) bytes")
            }
            output += piece
        }
        var rest = Substring(template)
        var trimNext = false
        while let open = rest.firstRange(of: "{{") {
            var text = rest[..<open.lowerBound]
            if trimNext { text = text.drop(while: isTemplateSpace) }
            let inside = rest[open.upperBound...]
            guard let close = inside.firstRange(of: "}}") else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: field,
                                   message: "the template has a '{{' with no '}}' after it: '\(PublishText.quoted(String(rest[open.lowerBound...])))'")
            }
            var action = inside[..<close.lowerBound]
            let written = "{{" + action + "}}"
            rest = inside[close.upperBound...]
            // Go's trim markers: a dash with a space beside it, inside the braces.
            if action.count >= 2, action.first == "-", isTemplateSpace(action[action.index(after: action.startIndex)]) {
                action = action.dropFirst()
                while let last = text.last, isTemplateSpace(last) { text = text.dropLast() }
            }
            trimNext = false
            if action.count >= 2, action.last == "-", isTemplateSpace(action[action.index(before: action.index(before: action.endIndex))]) {
                action = action.dropLast()
                trimNext = true
            }
            try append(text)
            try append(value(of: action, in: data, written: written, field: field))
        }
        try append(trimNext ? rest.drop(while: isTemplateSpace) : rest)
        return output
    }

    /// One action: `.a.b` looked up in `data`, printed as Go prints it.
    private static func value(of action: Substring, in data: JSONValue, written: String, field: String) throws(HTTPAPIError) -> String {
        let path = String(action).trimmingCharacters()
        let names = path.split(separator: ".", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("."), !names.isEmpty, names.allSatisfy(isIdentifier) else {
            throw HTTPAPIError(status: 400, code: "unsupported", field: field,
                               message: "the template's '\(PublishText.quoted(written))' is not offered: nook-http fills in ntfy's field lookups such as {{.alert.title}} (and {{- -}} trimming), not range, if, with, pipelines, functions, variables or comments")
        }
        // Go's text/template over JSON decoded into maps: a key that is not there (at any depth)
        // prints `<no value>`; looking into a null, a string, a number, a boolean or an array fails.
        var current: JSONValue? = data == .null ? nil : data
        var looked: [Substring] = []
        for name in names {
            guard let here = current else { break }
            guard case .object = here else {
                let whole = "." + looked.joined(separator: ".")
                throw HTTPAPIError(status: 400, code: "invalid_field", field: field,
                                   message: "the template's '\(PublishText.quoted(written))' looks up '\(PublishText.quoted(String(name)))' in \(looked.isEmpty ? "the body" : "'\(PublishText.quoted(whole))'"), which is \(here.typeName), not an object")
            }
            current = here[String(name)]
            looked.append(name)
        }
        switch current {
        case nil, .null?: return "<no value>"
        case .string(let text)?: return text
        case .bool(let flag)?: return flag ? "true" : "false"
        case .number(let number)?: return goNumber(number)
        case let other?:
            throw HTTPAPIError(status: 400, code: "unsupported", field: field,
                               message: "the template's '\(PublishText.quoted(written))' is \(other.typeName) in the body: a card shows text, numbers and true or false, so name a field inside it")
        }
    }

    /// Go's identifier: a letter or `_`, then letters, digits or `_`.
    private static func isIdentifier(_ name: Substring) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    private static func isTemplateSpace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\r\n"
    }

    /// A JSON number as Go's `%v` prints a float64 (strconv's shortest `%g`): the shortest digits
    /// that read back the same, as a decimal unless the exponent is below -4 or at least 6
    /// (`100000`, but `1e+06` and `1.234567e+06`; `1e-05`).
    static func goNumber(_ number: Double) -> String {
        guard number.isFinite else { return number.description }
        if number == 0 { return number.sign == .minus ? "-0" : "0" }
        let sign = number < 0 ? "-" : ""
        // Swift's description is the shortest form too; its digits and exponent are taken apart
        // and laid out as Go does.
        let text = abs(number).description
        var digits: [Character]
        var point: Int
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let mantissa = text[..<e]
            let exponent = Int(text[text.index(after: e)...]) ?? 0
            let whole = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            digits = Array(whole[0] + (whole.count > 1 ? whole[1] : ""))
            point = whole[0].count + exponent
        } else {
            let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            digits = Array(whole[0] + (whole.count > 1 ? whole[1] : ""))
            point = whole[0].count
        }
        while digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        let exponent = point - 1
        if exponent < -4 || exponent >= 6 {
            let rest = digits.dropFirst()
            let magnitude = abs(exponent)
            return sign + String(digits[0]) + (rest.isEmpty ? "" : "." + String(rest)) + "e" + (exponent < 0 ? "-" : "+")
                + (magnitude < 10 ? "0" : "") + String(magnitude)
        }
        if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + String(digits) }
        if point >= digits.count { return sign + String(digits) + String(repeating: "0", count: point - digits.count) }
        return sign + String(digits[..<point]) + "." + String(digits[point...])
    }
}
