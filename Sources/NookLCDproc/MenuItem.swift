/// A client's menu entry (`menu_add_item`), with what LCDd 0.5.9 keeps for its type
/// (`server/menuitem.h`) and the defaults `menu_add_item` gives it (`menu_commands.c`).
struct LCDMenuItem: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case menu, action, checkbox, ring, slider, numeric, alpha, ip
    }

    let id: String
    let kind: Kind
    var text: String
    /// The menu it is in; nil: the client's own menu (`""`).
    var parent: String?
    var hidden = false
    /// `-next`/`-prev` (and an action's `-menu_result`): `_quit_`, `_close_`, `_none_` or an item id.
    var successor: String?
    var predecessor: String?
    /// checkbox 0 off, 1 on, 2 gray; ring: the index; slider and numeric: the number.
    var value = 0
    var allowGray = false
    var strings: [String] = [""]
    var minimum = 0, maximum = 100, step = 1
    var minText = "", maxText = ""
    /// alpha and ip: the text.
    var textValue = ""
    var maximumLength = 10

    init(id: String, kind: Kind, text: String, parent: String?) {
        (self.id, self.kind, self.text, self.parent) = (id, kind, text, parent)
        switch kind {
        case .slider: value = 25
        case .ip: (textValue, maximumLength) = ("192.168.1.245", 15)
        default: break
        }
    }

    /// What a `menuevent update|plus|minus` carries for this item, as LCDd prints it.
    var eventValue: String? {
        switch kind {
        case .checkbox: ["off", "on", "gray"][value]
        case .ring, .slider, .numeric: String(value)
        case .alpha, .ip: String(textValue.prefix(40))
        case .menu, .action: nil
        }
    }

    /// The value shown beside the text in a menu.
    var shownValue: String {
        switch kind {
        case .checkbox: String(LCDIcons.symbol(["CHECKBOX_OFF", "CHECKBOX_ON", "CHECKBOX_GRAY"][value]))
        case .ring: strings.indices.contains(value) ? strings[value] : ""
        case .slider, .numeric: String(value)
        case .alpha, .ip: textValue
        case .menu: "›"
        case .action: ""
        }
    }
}

/// `menu_set_item`'s options as LCDd's option table has them: which types take each and how
/// its value is read. Answers are LCDd's, word for word.
enum LCDMenuOptions {
    enum Value { case boolean, checkbox, number, string }

    /// Option → (types it is valid for, nil: all) and how its value reads.
    static let table: [String: (kinds: Set<LCDMenuItem.Kind>?, value: Value)] = [
        "text": (nil, .string), "is_hidden": (nil, .boolean), "prev": (nil, .string), "next": (nil, .string),
        "menu_result": ([.action], .string), "value": ([.checkbox, .ring, .slider, .numeric, .alpha, .ip], .string),
        "allow_gray": ([.checkbox], .boolean), "strings": ([.ring], .string),
        "minvalue": ([.slider, .numeric], .number), "maxvalue": ([.slider, .numeric], .number),
        "stepsize": ([.slider], .number), "mintext": ([.slider], .string), "maxtext": ([.slider], .string),
        "minlength": ([.alpha], .number), "maxlength": ([.alpha], .number), "password_char": ([.alpha], .string),
        "allow_caps": ([.alpha], .boolean), "allow_noncaps": ([.alpha], .boolean), "allow_numbers": ([.alpha], .boolean),
        "allowed_extra": ([.alpha], .string), "v6": ([.ip], .boolean),
    ]

    /// The special targets of `-next`, `-prev` and `-menu_result`.
    static let specialTargets: Set<String> = ["_quit_", "_close_", "_none_"]

    /// LCDd reads numbers with `strtol(…, 0)` and wants all of the text read; `short`
    /// options keep 16 bits and `int` ones 32.
    static func number(_ text: String) -> Int? {
        guard case .value(let value) = CLike.strtol(text) else { return nil }
        return Int(Int32(truncatingIfNeeded: value))
    }
}
