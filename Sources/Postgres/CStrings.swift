import Foundation

/// Calls `body` with a C array of NUL-terminated copies of `strings` (nil entries stay NULL), the
/// shape libpq takes for keywords, values and parameters.
func withCStrings<Result>(
    _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> Result
) rethrows -> Result {
    let copies: [UnsafePointer<CChar>?] = strings.map { string in string.map { UnsafePointer(strdup($0)!) } }
    defer { for copy in copies { free(UnsafeMutablePointer(mutating: copy)) } }
    return try copies.withUnsafeBufferPointer { try body($0.baseAddress) }
}
