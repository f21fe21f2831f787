// nook-fuzz TARGET [libFuzzer flags] [CORPUS...]: fuzzes one of nookd's inputs (FuzzTarget).
// Built with `-sanitize=fuzzer,address -DNOOK_FUZZING` (Hardware/dev/fuzz does it) it runs
// libFuzzer; built plainly it replays the files or directories given, for reproducing a crash.
#if canImport(Glibc)
import Glibc
#endif
import NookFuzzTargets
import NookSystem

let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
    print("usage: nook-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) [libFuzzer flags] [CORPUS...]")
    exit(64)
}

#if NOOK_FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

nonisolated(unsafe) var chosen = target
// libFuzzer sees the arguments without the target's name.
var fuzzerArguments = [arguments[0]] + arguments.dropFirst(2)
var cArguments: [UnsafeMutablePointer<CChar>?] = fuzzerArguments.map { strdup($0) } + [nil]
var count = Int32(fuzzerArguments.count)
let status = cArguments.withUnsafeMutableBufferPointer { buffer -> Int32 in
    var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
    return runFuzzerDriver(&count, &pointer) { data, size in
        chosen.run(UnsafeBufferPointer(start: data, count: size))
        return 0
    }
}
exit(status)
#else
var replayed = 0
for path in arguments.dropFirst(2) {
    var files = [path]
    if let names = try? directoryEntries(path) {
        files = names.filter { !$0.hasPrefix(".") }.map { path + "/" + $0 }
    }
    for file in files.sorted() {
        guard let handle = fopen(file, "rb") else { print("nook-fuzz: cannot open \(file)"); exit(1) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let count = fread(&buffer, 1, buffer.count, handle), count > 0 { bytes += buffer[..<count] }
        fclose(handle)
        target.run(bytes)
        replayed += 1
    }
}
print("nook-fuzz: \(target.rawValue): \(replayed) inputs replayed without a crash")
#endif
