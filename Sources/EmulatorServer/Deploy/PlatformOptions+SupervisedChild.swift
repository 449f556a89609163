import Subprocess

extension PlatformOptions {
    /// How the emulator runs a child it supervises (a functions worker, one of Google's
    /// emulators): stopped with SIGTERM, then SIGKILL 5 seconds later; in a process group of its
    /// own, so that Ctrl-C in the terminal reaches the emulator alone, which then stops its
    /// children in order (a worker reached too would refuse the deliveries still being finished).
    static var supervisedChild: PlatformOptions {
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(5))]
        options.processGroupID = 0
        return options
    }
}
