import Glibc

/// The names in a directory (`opendir`/`readdir`), without `.` and `..`, in no given order.
public func directoryEntries(_ path: String) throws(SystemCallError) -> [String] {
    let directory = try systemCall("opendir", subject: path, returning: { opendir(path) })
    defer { _ = try? systemCall("closedir", subject: path) { closedir(directory) } }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// A fixed-size C character array (`d_name`, `sun_path`, a C struct's `char name[32]`) as a
/// String, up to its first NUL.
public func string<Field>(fromCCharacters field: Field) -> String {
    withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
