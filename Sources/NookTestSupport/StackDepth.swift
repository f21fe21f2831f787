/// Where the calling thread's stack is: the address of a local of a function that is never
/// inlined. Two calls from the same place on one thread give the same address unless the second
/// came through more frames (the stack grows down), which is how a test sees a call chain grow.
@inline(never)
public func stackAddressHere() -> UInt {
    var local: UInt8 = 0
    return withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
}
