import NookInput

extension TouchInput: TouchReading {
    var reading: TouchReadingState {
        let state = self.state
        return TouchReadingState(device: state.device, name: state.deviceName, problem: state.problem)
    }
}

extension Daemon {
    /// The touch reader nookd starts: NookInput's `TouchInput`, the kernel's input devices.
    static let touchReaderMaker: TouchReaderMaker? = { settings, geometry, gesture, info, warn in
        TouchInput(settings: TouchSettings(device: settings.device, swipeFraction: settings.swipeFraction, longPress: settings.longPress,
                                           calibration: settings.calibration, swapAxes: settings.swapAxes, invertX: settings.invertX,
                                           invertY: settings.invertY),
                   picture: (width: geometry.picture.width, height: geometry.picture.height), quarterTurns: geometry.rotation.degrees / 90,
                   panelQuarterTurns: geometry.panelOrientation.degrees / 90, gesture: gesture, info: info, warn: warn)
    }
}
