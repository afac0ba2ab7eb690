#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line to standard error (fd 2 directly: the C `stderr` global is not
/// concurrency-safe to touch from Swift 6).
func printError(_ text: String) {
    writeStandardError(text + "\n")
}

/// Writes `text` to standard error as is (progress bars redraw with a carriage return).
func writeStandardError(_ text: String) {
    var line = Array(text.utf8)
    var offset = 0
    while offset < line.count {
        let written = line.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { return }
        offset += written
    }
}
