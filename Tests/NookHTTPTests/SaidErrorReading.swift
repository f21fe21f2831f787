import NookProtocol

/// What an error answer said (Nook's code, the field, the message), read from Nook's body
/// (`{"error": {"code", "field", "message"}}`) or from ntfy's, which an ntfy route answers (M5):
/// its `error` is ntfy's words, then `code (field): message`.
struct SaidError: Equatable {
    var code: String
    var field: String?
    var message: String
}

extension JSONValue {
    var saidError: SaidError? {
        guard let error = self["error"] else { return nil }
        if case .object = error {
            return SaidError(code: error["code"]?.text ?? "", field: error["field"]?.text, message: error["message"]?.text ?? "")
        }
        guard let text = error.text, let words = text.range(of: "; ") else { return nil }
        let rest = text[words.upperBound...]
        guard let colon = rest.range(of: ": ") else { return nil }
        let head = rest[..<colon.lowerBound], message = String(rest[colon.upperBound...])
        guard head.hasSuffix(")"), let open = head.range(of: " (") else { return SaidError(code: String(head), field: nil, message: message) }
        return SaidError(code: String(head[..<open.lowerBound]), field: String(head[open.upperBound..<head.index(before: head.endIndex)]), message: message)
    }
}
