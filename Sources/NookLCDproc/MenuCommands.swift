/// The `menu_*` commands (LCDd 0.5.9's `server/commands/menu_commands.c`), answered word for
/// word; what they build is the server menu of ``ServerMenu.swift``.
extension LCDServerModel {
    func menu(_ command: String, _ id: LCDClientID, _ client: Client, _ argv: [String]) {
        func find(_ item: String) -> Int? { client.menu?.firstIndex { $0.id == item } }
        /// "" is the client's own menu (none before its first item); otherwise an item of type menu (LCDd would add to an
        /// item of any type and corrupt it: Nook refuses as for an unknown id).
        func menuExists(_ name: String) -> Bool { client.menu != nil && (name.isEmpty || client.menu!.contains { $0.id == name && $0.kind == .menu }) }
        switch command {
        case "menu_add_item":
            guard client.name != nil else { return error(id, "You need to give your client a name first") }
            guard argv.count >= 4 else { return error(id, "Usage: menu_add_item <menuid> <newitemid> <type> [<text>] [<option>]+") }
            if client.menu == nil { client.menu = [] }
            guard menuExists(argv[1]) else { return error(id, "Cannot find menu id") }
            guard find(argv[2]) == nil else { return error(id, "Item id already in use") }
            guard let kind = LCDMenuItem.Kind(rawValue: argv[3]) else { return error(id, "Invalid menuitem type") }
            guard client.menu!.count < limits.menuItems else { return error(id, "Cannot create menu (at most \(limits.menuItems) items)") }
            let hasText = argv.count >= 5 && !argv[4].hasPrefix("-")
            client.menu!.append(LCDMenuItem(id: argv[2], kind: kind, text: hasText ? text(argv[4]) : "", parent: argv[1].isEmpty ? nil : argv[1]))
            if menuIsOpen { glanceChanged = true }
            let options = Array(argv[(hasText ? 5 : 4)...])
            if options.isEmpty { success(id) } else { setMenuItem(id, client, item: argv[2], options) }
        case "menu_del_item":
            guard argv.count == 3 else { return error(id, "Usage: menu_del_item <menuid> <itemid>") }
            guard client.menu != nil else { return error(id, "Client has no menu") }
            guard menuExists(argv[1]) else { return error(id, "Cannot find menu id") }
            guard let index = find(argv[2]) else { return error(id, "Cannot find item") }
            // The item and everything under it, however deep (LCDd destroys the subtree).
            var removed: Set<String> = [argv[2]]
            var grew = true
            while grew {
                let before = removed.count
                for item in client.menu! where item.parent.map(removed.contains) == true { removed.insert(item.id) }
                grew = removed.count > before
            }
            menuWillRemove(id, removed, parentOfRemoved: client.menu![index].parent)
            client.menu!.removeAll { removed.contains($0.id) }
            if client.menu!.isEmpty {
                // Its last item gone, the client's menu goes too (as in LCDd).
                client.menu = nil
                if menuCustomMain?.client == id { menuCustomMain = nil }
                // A menu shown in it goes up to the main menu and stays open there, as LCDd's
                // does, until a key or the timeout closes it.
                if menuActive?.client == id { switchMenu(to: .main) }
            }
            if menuIsOpen { glanceChanged = true }
            success(id)
        case "menu_set_item":
            guard argv.count >= 4 else { return error(id, "Usage: menu_set_item <menuid> <itemid> {<option>}+") }
            guard menuExists(argv[1]) else { return error(id, "Cannot find menu id") }
            guard find(argv[2]) != nil else { return error(id, "Cannot find item") }
            setMenuItem(id, client, item: argv[2], Array(argv[3...]))
        case "menu_goto":
            guard (2...3).contains(argv.count) else { return error(id, "Usage: menu_goto <menuid> [<predecessor_id>]") }
            guard client.menu != nil, argv[1].isEmpty || find(argv[1]) != nil else { return error(id, "Cannot find menu id") }
            if argv.count == 3 {
                let target = argv[1].isEmpty ? "_client_menu_" : argv[1]
                if checkTarget(id, client, argv[2], of: target, "predecessor"), let index = find(argv[1]) { client.menu![index].predecessor = argv[2] }
            }
            // LCDd answers at once and switches screens in its next frame: the shown client's
            // `ignore` follows the answer (`menuevent enter` comes before it, as in LCDd).
            let mark = output.count
            menuGoto(id, argv[1].isEmpty ? nil : argv[1])
            let produced = output[mark...]
            output.removeSubrange(mark...)
            output += produced.filter { !$0.line.hasPrefix("ignore ") }
            success(id)
            output += produced.filter { $0.line.hasPrefix("ignore ") }
        default:  // menu_set_main
            guard argv.count == 2 else { return error(id, "Usage: menu_set_main <menuid>") }
            // Any item, as LCDd finds it; the menu opens there only if it is a menu or a slider.
            guard argv[1].isEmpty || argv[1] == "_main_" || find(argv[1]) != nil else { return error(id, "Cannot find menu id") }
            switch argv[1] {
            case "_main_": menuCustomMain = nil
            case "": menuCustomMain = client.menu == nil ? nil : LCDMenuLevel(client: id, item: nil)
            default: menuCustomMain = LCDMenuLevel(client: id, item: argv[1])
            }
            success(id)
        }
    }

    /// `menu_goto`: the menu opens at the client's item (a menu or a slider), or at the menu
    /// holding it with it selected (an entry without a screen of its own).
    private func menuGoto(_ id: LCDClientID, _ item: String?) {
        guard let item, let target = self.item(id, item) else { return switchMenu(to: LCDMenuLevel(client: id, item: nil)) }
        if target.kind == .menu || target.kind == .slider { return switchMenu(to: LCDMenuLevel(client: id, item: item)) }
        let holder = LCDMenuLevel(client: id, item: target.parent)
        switchMenu(to: holder)
        let siblings = clients[id]?.menu?.filter { $0.parent == target.parent && !$0.hidden } ?? []
        if let position = siblings.firstIndex(where: { $0.id == item }) { menuSelection[holder] = position }
    }

    /// LCDd's `set_predecessor`/`set_successor` check: `_quit_`, `_close_`, `_none_` or an
    /// item of the client; the error is sent and the option dropped otherwise.
    private func checkTarget(_ id: LCDClientID, _ client: Client, _ target: String, of item: String, _ role: String) -> Bool {
        guard LCDMenuOptions.specialTargets.contains(target) || client.menu?.contains(where: { $0.id == target }) == true else {
            error(id, "Cannot find \(role) '\(target)' for item '\(item)'")
            return false
        }
        return true
    }

    /// `menu_set_item`'s options in order, each checked against the item's type and its
    /// value read as LCDd reads it; one `success` at the end, as LCDd answers.
    func setMenuItem(_ id: LCDClientID, _ client: Client, item: String, _ options: [String]) {
        guard let at = client.menu?.firstIndex(where: { $0.id == item }) else { return success(id) }
        var entry = client.menu![at]
        var index = 0
        while index < options.count {
            let option = options[index]
            let quoted = Self.cut(Array(option.utf8))
            guard option.hasPrefix("-") else {
                error(id, "Found non-option: \"\(quoted)\"")
                index += 1
                continue
            }
            let name = String(option.dropFirst())
            guard let rule = LCDMenuOptions.table[name] else {
                error(id, "Unknown option: \"\(quoted)\"")
                index += 1
                continue
            }
            guard rule.kinds?.contains(entry.kind) ?? true else {
                error(id, "Option not valid for menuitem type: \"\(quoted)\"")
                index += 1
                continue
            }
            guard index + 1 < options.count else {
                error(id, "Missing value at option: \"\(quoted)\"")
                index += 1
                continue
            }
            let value = options[index + 1]
            switch apply(name, value, rule.value, to: &entry, id, client) {
            case .done:
                index += 2
            case .unreadable:
                error(id, "Could not interpret value at option: \"\(quoted)\"")
                index += 2
            case .unreadableRetryValue:
                // LCDd reads a bad `-menu_result` value again as an option.
                error(id, "Could not interpret value at option: \"\(quoted)\"")
                index += 1
            case .outOfRange:
                error(id, "Value out of range at option: \"\(quoted)\"")
                index += 2
            }
        }
        client.menu![at] = entry
        if menuIsOpen { glanceChanged = true }
        success(id)
    }

    private enum OptionOutcome { case done, unreadable, unreadableRetryValue, outOfRange }

    private func apply(_ name: String, _ value: String, _ type: LCDMenuOptions.Value, to entry: inout LCDMenuItem,
                       _ id: LCDClientID, _ client: Client) -> OptionOutcome {
        var flag = false
        var number = 0
        switch type {
        case .boolean:
            guard value == "true" || value == "false" else { return .unreadable }
            flag = value == "true"
        case .number:
            guard let read = LCDMenuOptions.number(value) else { return .unreadable }
            number = read
        case .checkbox, .string:
            break
        }
        switch name {
        case "text": entry.text = text(value)
        case "is_hidden": entry.hidden = flag
        case "prev":
            if checkTarget(id, client, value, of: entry.id, "predecessor") { entry.predecessor = text(value) }
        case "next":
            guard checkTarget(id, client, value, of: entry.id, "successor") else { break }
            guard entry.kind != .menu else {
                error(id, "Cannot set successor of '\(entry.id)': wrong type 'menu'")
                break
            }
            entry.successor = text(value)
        case "menu_result":
            switch value {
            case "none": entry.successor = "_none_"
            case "close": entry.successor = "_close_"
            case "quit": entry.successor = "_quit_"
            default: return .unreadableRetryValue
            }
        case "value":
            switch entry.kind {
            case .checkbox:
                guard let state = ["off", "on", "gray"].firstIndex(of: value) else { return .unreadable }
                entry.value = state
            case .ring:
                guard let read = LCDMenuOptions.number(value) else { return .unreadable }
                entry.value = Int(Int16(truncatingIfNeeded: read)) % max(1, entry.strings.count)
            case .slider, .numeric:
                guard let read = LCDMenuOptions.number(value) else { return .unreadable }
                entry.value = read
            case .alpha, .ip:
                entry.textValue = String(value.prefix(entry.maximumLength))
            case .menu, .action:
                break
            }
        case "allow_gray": entry.allowGray = flag
        case "strings":
            entry.strings = text(value).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            entry.value %= max(1, entry.strings.count)
        case "minvalue": entry.minimum = number
        case "maxvalue": entry.maximum = number
        case "stepsize": entry.step = number
        case "mintext": entry.minText = text(value)
        case "maxtext": entry.maxText = text(value)
        case "maxlength":
            let length = Int(Int16(truncatingIfNeeded: number))
            guard (0...1000).contains(length) else { return .outOfRange }
            entry.maximumLength = length
            entry.textValue = String(entry.textValue.prefix(length))
        case "v6":
            entry.maximumLength = flag ? 39 : 15
            entry.textValue = String(entry.textValue.prefix(entry.maximumLength))
        default:
            break  // accepted and kept by LCDd for editing Nook does not offer (alpha's rules)
        }
        if entry.kind == .slider {
            if entry.value < entry.minimum { entry.value = entry.minimum } else if entry.value > entry.maximum { entry.value = entry.maximum }
        }
        return .done
    }
}
