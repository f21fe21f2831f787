import NookProtocol

/// One message as an ntfy sender publishes it (H2): by topic with the body as the message and
/// the rest as headers or query parameters (`POST|PUT /{topic}`), or as JSON with `topic`
/// (`POST /`). Header names and their aliases are ntfy's own, compared without case.
public struct NtfyMessage: Sendable, Equatable {
    public var topic: String
    public var message: String
    public var title: String?
    /// 1 (min) to 5 (max); 3 is ntfy's default.
    public var priority: Int
    public var tags: [String]
    public var markdown: Bool
    /// ntfy's sequence id (`X-Sequence-ID`, `sid`, `sequence_id`, or the path's second part):
    /// messages with the same one are one notification, updated in place.
    public var sequenceID: String?
    /// What the sender set that a board cannot do (a click URL, action buttons, an icon URL,
    /// an attachment, an e-mail copy): one note each, for the log and the answer.
    public var ignored: [String]

    public init(topic: String, message: String, title: String? = nil, priority: Int = 3, tags: [String] = [],
                markdown: Bool = false, sequenceID: String? = nil, ignored: [String] = []) {
        (self.topic, self.message, self.title, self.priority, self.tags) = (topic, message, title, priority, tags)
        (self.markdown, self.sequenceID, self.ignored) = (markdown, sequenceID, ignored)
    }

    /// ntfy's topic and sequence id rule: 1 to 64 of `[-_A-Za-z0-9]`.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    // Each parameter's names, lower case: ntfy reads every one from a header (any case) or a
    // query parameter of the same name.
    static let messageNames = ["x-message", "message", "m"]
    static let titleNames = ["x-title", "title", "ti", "t"]
    static let priorityNames = ["x-priority", "priority", "prio", "p"]
    static let tagNames = ["x-tags", "tags", "tag", "ta"]
    static let sequenceNames = ["x-sequence-id", "sequence-id", "sequence_id", "sid"]
    static let markdownNames = ["x-markdown", "markdown", "md"]
    static let delayNames = ["x-delay", "delay", "x-at", "at", "x-in", "in"]
    /// Parameters a phone acts on and a board cannot: accepted, left out, noted.
    static let ignoredParameters: [(what: String, names: [String])] = [
        ("click", ["x-click", "click"]), ("actions", ["x-actions", "actions", "action"]),
        ("icon", ["x-icon", "icon"]), ("attach", ["x-attach", "attach", "a"]),
        ("filename", ["x-filename", "filename", "file", "f"]),
        ("email", ["x-email", "x-e-mail", "email", "e-mail", "mail", "e"]), ("call", ["x-call", "call"]),
    ]

    /// `POST|PUT /{topic}` (and `/{topic}/{sequenceID}`, and ntfy's webhooks `GET|POST|PUT
    /// /{topic}/publish|send|trigger`): the body is the message, as ntfy reads it; without a
    /// body a `message` parameter gives it. With a template (`X-Template: yes`) the message and
    /// title parameters are templates and the body is the JSON they are filled in from.
    public static func fromRequest(_ request: HTTPRequest, topic: String, sequenceID pathSequence: String? = nil) -> Result<NtfyMessage, HTTPAPIError> {
        do throws(HTTPAPIError) {
            guard let body = String(validating: request.body, as: UTF8.self) else {
                throw HTTPAPIError(status: 400, code: "invalid_body", field: "body",
                                   message: "the message is not UTF-8 text (attachments are not shown on a board)")
            }
            var message = NtfyMessage(topic: topic, message: "")
            try message.readParameters(request)
            let given = parameter(request, messageNames)
            if try NtfyTemplate.requested(request) {
                let data = try NtfyTemplate.data(request.body)
                message.message = try NtfyTemplate.render(given ?? "", data: data, field: "message")
                if let title = message.title { message.title = try NtfyTemplate.render(title, data: data, field: "title") }
            } else if !request.body.isEmpty {
                message.message = body
                if given != nil { message.ignored.append("the message parameter was left out: the body gives the message, as ntfy reads it") }
            } else {
                message.message = given ?? ""
            }
            if let pathSequence { message.sequenceID = try checkedSequenceID(pathSequence, field: "path") }
            if (request.header("content-type") ?? "").lowercased().hasPrefix("text/markdown") { message.markdown = true }
            try message.refuseNUL()
            message.finish()
            return .success(message)
        } catch {
            return .failure(error)
        }
    }

    /// `POST|PUT /` with a JSON object naming its `topic`; headers fill in what it leaves out (as
    /// ntfy reads them: Apprise sends the priority and tags as headers beside the JSON).
    public static func fromJSON(_ request: HTTPRequest) -> Result<NtfyMessage, HTTPAPIError> {
        do throws(HTTPAPIError) {
            let value: JSONValue
            do { value = try JSONValue.parse(request.body) } catch {
                throw HTTPAPIError(status: 400, code: "malformed_json", field: "body",
                                   message: "publishing to / takes a JSON object with a topic: \(error)")
            }
            guard case .object = value else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: "body", message: "must be a JSON object with a topic, got \(value.typeName)")
            }
            func string(_ key: String) throws(HTTPAPIError) -> String? {
                switch value[key] {
                case nil, .null?: return nil
                case .string(let text)?: return text
                case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: key, message: "must be a string, got \(other.typeName)")
                }
            }
            guard let topic = try string("topic") else {
                throw HTTPAPIError(status: 400, code: "missing_field", field: "topic", message: "is required: the topic to publish to")
            }
            guard isValidName(topic) else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: "topic", message: "must be 1 to 64 letters, digits, '-' or '_', got '\(PublishText.quoted(topic))'")
            }
            // ntfy fills a template from the body, which here is the publish itself.
            if try NtfyTemplate.requested(request) {
                throw HTTPAPIError(status: 400, code: "unsupported", field: "template",
                                   message: "a template is filled in from the JSON body of POST /{topic}; the JSON form (/) has no other body to fill it from")
            }
            var message = NtfyMessage(topic: topic, message: "")
            try message.readParameters(request)
            message.message = try string("message") ?? parameter(request, messageNames) ?? ""
            if let title = try string("title") { message.title = title }
            switch value["priority"] {
            // ntfy's typed clients send 0 for "not set", and ntfy reads it so.
            case nil, .null?, .number(0)?: break
            case .number(let number)?:
                guard number == number.rounded(), number >= 1, number <= 5 else {
                    throw HTTPAPIError(status: 400, code: "invalid_field", field: "priority", message: "must be 1 (min) to 5 (max), or 0 for the default, got \(number)")
                }
                message.priority = Int(number)
            case .string(let text)?: message.priority = try priority(text, field: "priority")
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "priority", message: "must be a number from 1 to 5, got \(other.typeName)")
            }
            switch value["tags"] {
            case nil, .null?: break
            case .array(let items)?:
                message.tags = try items.map { (item) throws(HTTPAPIError) in
                    guard let text = item.text else {
                        throw HTTPAPIError(status: 400, code: "invalid_field", field: "tags", message: "must be an array of strings, got \(item.typeName) in it")
                    }
                    return text
                }
            case .string(let text)?: message.tags = splitTags(text)
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "tags", message: "must be an array of strings, got \(other.typeName)")
            }
            switch value["markdown"] {
            case .bool(let flag)?: message.markdown = flag
            case nil, .null?: break
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "markdown", message: "must be true or false, got \(other.typeName)")
            }
            if let sequence = try string("sequence_id") { message.sequenceID = try checkedSequenceID(sequence, field: "sequence_id") }
            if let delay = try string("delay"), !delay.isEmpty { throw unsupportedDelay("delay", delay) }
            for what in ["click", "actions", "icon", "attach", "filename", "email", "call"] where value[what] != nil && value[what] != .null {
                if !message.ignored.contains(where: { $0.hasPrefix(what + " ") }) { message.ignored.append(ignoredNote(what)) }
            }
            try message.refuseNUL()
            message.finish()
            return .success(message)
        } catch {
            return .failure(error)
        }
    }

    /// Title, priority, tags, sequence id and Markdown from headers or the query.
    private mutating func readParameters(_ request: HTTPRequest) throws(HTTPAPIError) {
        if let title = Self.parameter(request, Self.titleNames) { self.title = title }
        if let text = Self.parameter(request, Self.priorityNames) {
            // Browsers and proxies send RFC 9218's `Priority: u=1, i`, which is no ntfy priority.
            if Self.isRFC9218Priority(text) {
                ignored.append("Priority '\(PublishText.quoted(text))' is HTTP's RFC 9218 priority, not ntfy's: ignored")
            } else {
                priority = try Self.priority(text, field: "priority")
            }
        }
        if let text = Self.parameter(request, Self.tagNames) { tags = Self.splitTags(text) }
        if let text = Self.parameter(request, Self.sequenceNames) { sequenceID = try Self.checkedSequenceID(text, field: "sequence_id") }
        if let text = Self.parameter(request, Self.markdownNames) { markdown = ["1", "yes", "true"].contains(text.lowercased()) }
        if let delay = Self.parameter(request, Self.delayNames), !delay.isEmpty { throw Self.unsupportedDelay("delay", delay) }
        for (what, names) in Self.ignoredParameters where Self.parameter(request, names) != nil {
            ignored.append(Self.ignoredNote(what))
        }
    }

    /// The text that goes on the card, from the body, a query parameter or an RFC 2047 header.
    private func refuseNUL() throws(HTTPAPIError) {
        try PublishText.refuseNUL(message, field: "message")
        try PublishText.refuseNUL(title, field: "title")
        for tag in tags { try PublishText.refuseNUL(tag, field: "tags") }
    }

    /// ntfy's empty message.
    private mutating func finish() {
        if message.allSatisfy(\.isWhitespace) { message = "triggered" }
    }

    static func parameter(_ request: HTTPRequest, _ names: [String]) -> String? {
        for name in names {
            if let value = request.header(name) { return PublishText.decodedHeader(value) }
        }
        for name in names {
            if let value = request.parameter(name) { return value }
        }
        return nil
    }

    /// ntfy's names and numbers: `1`/`min`, `2`/`low`, `3`/`default`, `4`/`high`, `5`/`max`/`urgent`.
    static func priority(_ text: String, field: String) throws(HTTPAPIError) -> Int {
        switch text.lowercased().trimmingCharacters() {
        case "1", "min": return 1
        case "2", "low": return 2
        case "", "3", "default": return 3
        case "4", "high": return 4
        case "5", "max", "urgent": return 5
        default:
            throw HTTPAPIError(status: 400, code: "invalid_field", field: field,
                               message: "must be 1 to 5 or min, low, default, high, max, urgent; got '\(PublishText.quoted(text))'")
        }
    }

    static func isRFC9218Priority(_ text: String) -> Bool {
        let lowered = text.lowercased().trimmingCharacters()
        return lowered.hasPrefix("u=") || lowered == "i" || lowered.hasPrefix("i,") || lowered.contains(", i") || lowered.contains(",i")
    }

    static func splitTags(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingCharacters() }.filter { !$0.isEmpty }
    }

    static func checkedSequenceID(_ text: String, field: String) throws(HTTPAPIError) -> String {
        guard isValidName(text) else {
            throw HTTPAPIError(status: 400, code: "invalid_field", field: field,
                               message: "the sequence id must be 1 to 64 letters, digits, '-' or '_', got '\(PublishText.quoted(text))'")
        }
        return text
    }

    /// A delay is refused whatever its form (ntfy's `30m`, `10am`, a Unix time): the message
    /// quotes it so a sender sees which header or field carried one.
    static func unsupportedDelay(_ field: String, _ value: String) -> HTTPAPIError {
        HTTPAPIError(status: 400, code: "unsupported", field: field,
                     message: "a delay ('\(DurationText.shown(value))') is not offered: scheduled delivery (Delay, At, In) needs a server that holds the message; a board shows a card when it arrives, so send it at the time it should show")
    }

    static func ignoredNote(_ what: String) -> String {
        "\(what) ignored: a board has nothing to open, attach or send it to"
    }
}

extension String {
    /// Without leading and trailing whitespace.
    func trimmingCharacters() -> String {
        guard let start = firstIndex(where: { !$0.isWhitespace }), let end = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[start...end])
    }
}
