// Micro-benchmark for the checksums every published file gets (issue 45: hashing a 1 GB
// output must cost no more than `sha256sum`). Run by scripts/bench, which times this
// process and sha256sum on the same file; prints the digest so the bench can check both
// agree (a wrong digest must never pass for a fast one).
//
//   DigestBench FILE
import DropcutDigest
import Foundation

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: DigestBench FILE\n".utf8))
    exit(2)
}
do {
    print(try SHA256.hex(ofFile: CommandLine.arguments[1]))
} catch {
    FileHandle.standardError.write(Data("DigestBench: \(error)\n".utf8))
    exit(1)
}
