import NookActivities

/// LCDd's screen and widget commands: `screen_add`, `screen_set`, `widget_add`, `widget_set` …
extension LCDServerModel {
    // MARK: Screens

    func screenAdd(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: screen_add <screenid>") }
        let name = argv[1]
        guard client.screens[name] == nil else { return error(id, "Screen already exists") }
        guard client.screens.count < limits.screens else { return error(id, "failed to add screen (at most \(limits.screens) per client)") }
        client.screens[name] = LCDScreen(id: name, duration: Self.defaultDuration)
        client.screenOrder.append(name)
        screenList.append(ScreenRef(client: id, screen: name))
        success(id)
    }

    func screenDelete(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: screen_del <screenid>") }
        let name = argv[1]
        guard client.screens[name] != nil else { return error(id, "Unknown screen id") }
        removeFromList(ScreenRef(client: id, screen: name))
        client.screens[name] = nil
        client.screenOrder.removeAll { $0 == name }
        success(id)
    }

    func screenSet(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        if argv.count == 1 {
            return error(id, "Usage: screen_set <id> [-name <name>] [-wid <width>] [-hgt <height>] [-priority <prio>] [-duration <int>] [-timeout <int>] [-heartbeat <type>] [-backlight <type>] [-cursor <type>] [-cursor_x <xpos>] [-cursor_y <ypos>]")
        }
        guard argv.count > 2 else { return error(id, "What do you want to set?") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Unknown screen id") }
        var index = 2
        while index < argv.count {
            let option = argv[index].hasPrefix("-") ? String(argv[index].dropFirst()) : argv[index]
            let known = ["name", "priority", "duration", "heartbeat", "wid", "hgt", "timeout", "backlight", "cursor", "cursor_x", "cursor_y"]
            guard known.contains(option) else {
                error(id, "invalid parameter")
                index += 1
                continue
            }
            guard index + 1 < argv.count else {
                error(id, "-\(option) requires a parameter")
                index += 1
                continue
            }
            index += 1
            let value = argv[index]
            switch option {
            case "name": screen.name = text(value); success(id)
            case "priority":
                if let priority = LCDPriority.parse(value) {
                    if priority != screen.priority { glanceChanged = true }
                    if priority < .foreground { screen.carded = false }
                    screen.priority = priority
                    success(id)
                } else {
                    error(id, "invalid argument at -priority")
                }
            case "duration":
                let number = CLike.atoi(value)
                if number > 0 { screen.duration = number }
                success(id)
            case "timeout":
                let number = CLike.atoi(value)
                if number > 0 { screen.timeout = number }
                success(id)
            case "backlight":
                if !["on", "off", "toggle", "blink", "flash", "open"].contains(value) { error(id, "unknown backlight mode") }
                success(id)
            case "cursor_x", "cursor_y":
                let number = CLike.atoi(value)
                let bound = option == "cursor_x" ? grid.width : grid.height
                if number > 0 && number <= bound { success(id) } else { error(id, "Cursor position outside screen") }
            default:  // heartbeat, wid, hgt, cursor: accepted, not drawn
                success(id)
            }
            index += 1
        }
        client.screens[argv[1]] = screen
    }

    // MARK: Widgets

    func widgetAdd(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard (4...6).contains(argv.count) else { return error(id, "Usage: widget_add <screenid> <widgetid> <widgettype> [-in <id>]") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Invalid screen id") }
        guard let type = LCDWidgetType(rawValue: argv[3]) else { return error(id, "Invalid widget type") }
        var frame: Int?
        if argv.count > 4 {
            let option = argv[4].hasPrefix("-") ? String(argv[4].dropFirst()) : argv[4]
            if option == "in" {
                guard argv.count == 6 else { return error(id, "Specify a frame to place widget in") }
                guard let (index, child) = screen.locate(argv[5]), child == nil, screen.widgets[index].type == .frame else {
                    return error(id, "Error finding frame")
                }
                frame = index
            }
        }
        guard screen.widgetCount < limits.widgetsPerScreen else { return error(id, "Error adding widget (at most \(limits.widgetsPerScreen) per screen)") }
        let widget = LCDWidget(id: argv[2], type: type)
        // LCDd allows two widgets with one id; the first one found is the one set.
        if let frame { screen.widgets[frame].children.append(widget) } else { screen.widgets.append(widget) }
        client.screens[argv[1]] = screen
        success(id)
    }

    func widgetDelete(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 3 else { return error(id, "Usage: widget_del <screenid> <widgetid>") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Invalid screen id") }
        guard let (index, child) = screen.locate(argv[2]) else { return error(id, "Invalid widget id") }
        if let child { screen.widgets[index].children.remove(at: child) } else { screen.widgets.remove(at: index) }
        client.screens[argv[1]] = screen
        touched(id, argv[1])
        success(id)
    }

    func touched(_ id: LCDClientID, _ screen: String) {
        if current == ScreenRef(client: id, screen: screen) { glanceChanged = true }
    }

    func widgetSet(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count >= 4 else { return error(id, "Usage: widget_set <screenid> <widgetid> <widget-SPECIFIC-data>") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Unknown screen id") }
        let location = screen.locate(argv[2])
        guard let (index, child) = location else { return error(id, "Unknown widget id") }
        var widget = child.map { screen.widgets[index].children[$0] } ?? screen.widgets[index]
        let data = Array(argv[3...])
        let digits = { (count: Int) in data.prefix(count).allSatisfy(CLike.startsWithDigit) }
        switch widget.type {
        case .string:
            guard data.count == 3 else { return error(id, "Wrong number of arguments") }
            guard digits(2) else { return error(id, "Invalid coordinates") }
            (widget.x, widget.y, widget.text) = (CLike.atoi(data[0]), CLike.atoi(data[1]), text(data[2]))
            success(id)
        case .hbar, .vbar:
            guard data.count == 3 else { return error(id, "Wrong number of arguments") }
            if digits(2) {
                (widget.x, widget.y, widget.length) = (CLike.atoi(data[0]), CLike.atoi(data[1]), CLike.atoi(data[2]))
            } else {
                error(id, "Invalid coordinates")
            }
            success(id)
        case .icon:
            guard data.count == 3 else { return error(id, "Wrong number of arguments") }
            guard digits(2) else { return error(id, "Invalid coordinates") }
            guard let icon = LCDIcons.canonicalName(data[2]) else { return error(id, "Invalid icon name") }
            (widget.x, widget.y, widget.icon) = (CLike.atoi(data[0]), CLike.atoi(data[1]), icon)
            success(id)
        case .title:
            guard data.count == 1 else { return error(id, "Wrong number of arguments") }
            widget.text = text(data[0])
            success(id)
        case .scroller:
            guard data.count == 7 else { return error(id, "Wrong number of arguments") }
            guard digits(4) else { return error(id, "Invalid coordinates") }
            let direction = data[4].utf8.first ?? 0
            guard [UInt8(ascii: "h"), UInt8(ascii: "v"), UInt8(ascii: "m")].contains(direction) else { return error(id, "Invalid direction") }
            (widget.left, widget.top, widget.right, widget.bottom) = (CLike.atoi(data[0]), CLike.atoi(data[1]), CLike.atoi(data[2]), CLike.atoi(data[3]))
            (widget.direction, widget.speed, widget.text) = (direction, CLike.atoi(data[5]), text(data[6]))
            success(id)
        case .frame:
            guard data.count == 8 else { return error(id, "Wrong number of arguments") }
            guard digits(6) else { return error(id, "Invalid coordinates") }
            let direction = data[6].utf8.first ?? 0
            guard direction == UInt8(ascii: "h") || direction == UInt8(ascii: "v") else { return error(id, "Invalid direction") }
            (widget.left, widget.top, widget.right, widget.bottom) = (CLike.atoi(data[0]), CLike.atoi(data[1]), CLike.atoi(data[2]), CLike.atoi(data[3]))
            (widget.width, widget.height, widget.direction, widget.speed) = (CLike.atoi(data[4]), CLike.atoi(data[5]), direction, CLike.atoi(data[7]))
            success(id)
        case .num:
            guard data.count == 2 else { return error(id, "Wrong number of arguments") }
            if !CLike.startsWithDigit(data[0]) {
                error(id, "Invalid coordinates")
            } else if !CLike.startsWithDigit(data[1]) {
                error(id, "Invalid number")
            } else {
                (widget.x, widget.y) = (CLike.atoi(data[0]), CLike.atoi(data[1]))
            }
            success(id)
        }
        if let child { screen.widgets[index].children[child] = widget } else { screen.widgets[index] = widget }
        client.screens[argv[1]] = screen
        touched(id, argv[1])
    }
}
