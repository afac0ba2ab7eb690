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
    writeAll(2, text)
}

/// Writes `text` to standard output at once, unbuffered (a JSON progress line must reach
/// a pipe when it is written). Nothing else may `print` meanwhile: its buffered text would
/// come out of order.
func writeStandardOutput(_ text: String) {
    writeAll(1, text)
}

private func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
    }
}
